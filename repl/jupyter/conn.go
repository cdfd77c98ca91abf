package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// ConnectionInfo is a kernel's connection file: where its five channels
// listen and how messages are signed.
type ConnectionInfo struct {
	Transport       string `json:"transport"` // "tcp" or "ipc"
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"` // "hmac-sha256", say
	Key             string `json:"key"`              // "" means messages are not signed
	KernelName      string `json:"kernel_name,omitempty"`
}

// schemes are the signature schemes a connection file may name.
var schemes = map[string]func() hash.Hash{
	"hmac-sha256": sha256.New,
	"hmac-sha224": sha256.New224,
	"hmac-sha384": sha512.New384,
	"hmac-sha512": sha512.New,
	"hmac-sha1":   sha1.New,
}

// SchemeNames lists the signature schemes a connection file may name.
func SchemeNames() []string {
	names := make([]string, 0, len(schemes))
	for n := range schemes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadConnectionFile reads and checks the connection file at path. Its
// errors name the file, and for a syntax error the line and column.
func ReadConnectionFile(path string) (*ConnectionInfo, error) {
	b, err := fsio.ReadFile(path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("jupyter: connection file: %w", err)
	}
	info, err := ParseConnectionInfo(b)
	if err != nil {
		return nil, fmt.Errorf("jupyter: connection file %s%w", path, err)
	}
	return info, nil
}

// ParseConnectionInfo parses and checks the JSON of a connection file.
// Its errors start with the position (":3:7: ...") or ": ".
func ParseConnectionInfo(b []byte) (*ConnectionInfo, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(b, err)
	}
	var info ConnectionInfo
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&info); err != nil {
		return nil, jsonError(b, err)
	}
	var missing []string
	for _, k := range []string{"ip", "shell_port", "control_port", "iopub_port", "stdin_port", "hb_port", "key"} {
		if _, ok := raw[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf(": missing %s (a connection file has transport, ip, shell_port, control_port, iopub_port, stdin_port, hb_port, signature_scheme and key)", strings.Join(missing, ", "))
	}
	if info.Transport == "" {
		info.Transport = "tcp"
	}
	if info.Transport != "tcp" && info.Transport != "ipc" {
		return nil, fmt.Errorf(": transport %q: want \"tcp\" or \"ipc\"", info.Transport)
	}
	if info.IP == "" {
		return nil, errors.New(": ip is empty; want an address such as 127.0.0.1")
	}
	if info.SignatureScheme == "" {
		info.SignatureScheme = "hmac-sha256"
	}
	if _, ok := schemes[info.SignatureScheme]; !ok {
		return nil, fmt.Errorf(": signature_scheme %q is not supported; want one of %s", info.SignatureScheme, strings.Join(SchemeNames(), ", "))
	}
	for _, p := range info.ports() {
		if *p.port < 0 || (info.Transport == "tcp" && *p.port > 65535) {
			return nil, fmt.Errorf(": %s_port %d is not a port number (0 to 65535; 0 picks a free one)", p.name, *p.port)
		}
	}
	return &info, nil
}

// jsonError turns a JSON decoding error into one with the line and
// column where it happened.
func jsonError(b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offending character
	case errors.As(err, &te):
		off = te.Offset
		msg = fmt.Sprintf("%s is a JSON %s; want a %s", te.Field, te.Value, te.Type)
	}
	if off < 0 {
		return fmt.Errorf(": %s", msg)
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Errorf(":%d:%d: %s", line, col, msg)
}

type namedPort struct {
	name string
	port *int
}

func (c *ConnectionInfo) ports() []namedPort {
	return []namedPort{{"shell", &c.ShellPort}, {"control", &c.ControlPort}, {"iopub", &c.IOPubPort}, {"stdin", &c.StdinPort}, {"hb", &c.HBPort}}
}

// endpoint returns the ZeroMQ address of a channel on port.
func (c *ConnectionInfo) endpoint(port int) string {
	if c.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", c.IP, port)
	}
	ip := c.IP
	if ip == "*" {
		ip = "0.0.0.0"
	}
	if strings.Contains(ip, ":") && !strings.HasPrefix(ip, "[") {
		ip = "[" + ip + "]"
	}
	return fmt.Sprintf("tcp://%s:%d", ip, port)
}

// WriteFile writes the connection file to path, through a temporary file
// renamed into place, readable by its owner only (it holds the key).
func (c *ConnectionInfo) WriteFile(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'), 0o600)
}

// writeAtomic writes data to path through a temporary file in the same
// folder, so that path is never half-written.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// newMAC returns the signer of a connection: nil when its key is empty.
func (c *ConnectionInfo) newMAC() func() hash.Hash {
	if c.Key == "" {
		return nil
	}
	h := schemes[c.SignatureScheme]
	key := []byte(c.Key)
	return func() hash.Hash { return hmac.New(h, key) }
}
