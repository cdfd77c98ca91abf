package jupyter

import (
	"errors"
	"strings"
	"testing"
)

// TestCodec signs and checks messages: a round trip, a wrong key, a
// replay and broken frames.
func TestCodec(t *testing.T) {
	info := ConnectionInfo{SignatureScheme: "hmac-sha256", Key: "secret"}
	c := &codec{mac: info.newMAC()}
	m := &Message{Identities: [][]byte{[]byte("peer")}, Header: Header{MsgID: "1", MsgType: "execute_request", Version: ProtocolVersion},
		Metadata: map[string]any{"k": "v"}, Content: []byte(`{"code":"1+1"}`)}
	frames, err := c.encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := (&codec{mac: info.newMAC()}).decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Identities[0]) != "peer" || got.Header.MsgType != "execute_request" || got.Parent != nil || string(got.Content) != `{"code":"1+1"}` || got.Metadata["k"] != "v" {
		t.Errorf("round trip: %+v", got)
	}
	if _, err := c.decode(frames); err != nil {
		t.Fatal(err)
	}
	if _, err := c.decode(frames); !errors.Is(err, ErrReplay) {
		t.Errorf("a replay: %v", err)
	}
	other := ConnectionInfo{SignatureScheme: "hmac-sha256", Key: "other"}
	if _, err := (&codec{mac: other.newMAC()}).decode(frames); !errors.Is(err, ErrSignature) {
		t.Errorf("a wrong key: %v", err)
	}
	for _, tc := range []struct {
		name   string
		frames [][]byte
		want   string
	}{
		{"no delimiter", [][]byte{[]byte("a"), []byte("b")}, "without the delimiter"},
		{"too few frames", [][]byte{[]byte(delimiter), nil, []byte("{}")}, "want at least 5"},
	} {
		if _, err := c.decode(tc.frames); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestParseConnectionInfo checks the errors of broken connection files.
func TestParseConnectionInfo(t *testing.T) {
	ok := `{"transport": "tcp", "ip": "127.0.0.1", "shell_port": 1, "control_port": 2, "iopub_port": 3, "stdin_port": 4, "hb_port": 5, "key": "k", "signature_scheme": "hmac-sha256"}`
	info, err := ParseConnectionInfo([]byte(ok))
	if err != nil || info.endpoint(info.IOPubPort) != "tcp://127.0.0.1:3" {
		t.Fatalf("%+v %v", info, err)
	}
	for _, tc := range []struct{ src, want string }{
		{`{"ip": "127.0.0.1",}`, ":1:20: invalid character '}'"},
		{strings.Replace(ok, `"tcp"`, `"udp"`, 1), `transport "udp": want "tcp" or "ipc"`},
		{strings.Replace(ok, `"hb_port": 5`, `"hb_port": 70000`, 1), "hb_port 70000 is not a port number"},
		{strings.Replace(ok, `"ip": "127.0.0.1"`, `"ip": ""`, 1), "ip is empty"},
	} {
		if _, err := ParseConnectionInfo([]byte(tc.src)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestNotebookRoundTrip reads a notebook with multiline sources and
// writes it back in Jupyter's form.
func TestNotebookRoundTrip(t *testing.T) {
	src := `{"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# T\n", "text"]},
	  {"cell_type": "code", "execution_count": 3, "id": "b", "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": "x\n"}], "source": "x := 1\nx"}],
	  "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	nb, err := ParseNotebook([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if nb.Cells[0].Source != "# T\ntext" || *nb.Cells[1].ExecutionCount != 3 || len(nb.Cells[1].Outputs) != 1 {
		t.Errorf("%+v", nb.Cells)
	}
	b, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\"source\": [\n    \"x := 1\\n\",\n    \"x\"\n   ]") {
		t.Errorf("written:\n%s", b)
	}
	if _, err := ParseNotebook([]byte(`{"nbformat": 3, "cells": []}`)); err == nil || !strings.Contains(err.Error(), "nbformat 3 is not supported") {
		t.Errorf("nbformat 3: %v", err)
	}
}
