package format

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// A current-format .caffemodel read and written back is identical, through
// the API and through a file.
func TestCaffemodelRoundTripIsByteIdentical(t *testing.T) {
	path := sharedFile(t, "trained/lenet_iter_10000.caffemodel")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	np, err := ReadCaffemodel(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := EncodeBinary(np)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, orig) {
		t.Fatalf("re-encoded %d bytes differ from the file's %d", len(out), len(orig))
	}
	dst := filepath.Join(t.TempDir(), "copy.caffemodel")
	if err := WriteCaffemodel(dst, np); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(written, orig) {
		t.Error("written file differs from the original")
	}
}

// Legacy files are upgraded on reading; reading what was written gives the
// same message. Without the upgrade their bytes survive too.
func TestLegacyBinaryRoundTrips(t *testing.T) {
	for _, name := range []string{"lenet_v1_iter_10000.caffemodel", "cifar10_quick_v1_iter_4000.caffemodel"} {
		t.Run(name, func(t *testing.T) {
			path := sharedFile(t, "trained/"+name)
			np, err := ReadCaffemodel(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(np.Layers) != 0 || len(np.Layer) == 0 {
				t.Fatalf("not upgraded: %d legacy layers, %d layers", len(np.Layers), len(np.Layer))
			}
			dst := filepath.Join(t.TempDir(), name)
			if err := WriteCaffemodel(dst, np); err != nil {
				t.Fatal(err)
			}
			back, err := ReadCaffemodel(dst)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(np, back) {
				t.Error("read → write → read changed the message")
			}

			orig, _ := os.ReadFile(path)
			raw := &caffepb.NetParameter{}
			if err := DecodeBinary(name, orig, raw); err != nil {
				t.Fatal(err)
			}
			if out, _ := EncodeBinary(raw); !bytes.Equal(out, orig) {
				t.Error("the legacy file does not re-encode to the same bytes")
			}
		})
	}
}

func TestSolverStateRoundTrip(t *testing.T) {
	for _, name := range []string{"lenet_v1_iter_10000.solverstate", "cifar10_quick_v1_iter_4000.solverstate"} {
		path := sharedFile(t, "trained/"+name)
		st, err := ReadSolverState(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.GetIter() == 0 || len(st.History) == 0 {
			t.Errorf("%s: iter %d, %d history blobs", name, st.GetIter(), len(st.History))
		}
		for i, h := range st.History {
			if _, err := BlobData(h); err != nil {
				t.Errorf("%s: history %d: %v", name, i, err)
			}
		}
		dst := filepath.Join(t.TempDir(), name)
		if err := WriteSolverState(dst, st); err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(path)
		written, _ := os.ReadFile(dst)
		if !bytes.Equal(orig, written) {
			t.Errorf("%s: written state differs from the original", name)
		}
	}
	st, err := ReadSolverState(sharedFile(t, "trained/lenet_v1_iter_10000.solverstate"))
	if err != nil {
		t.Fatal(err)
	}
	// LeNet has 8 learnable blobs; SGD keeps one history blob each.
	if st.GetIter() != 10000 || len(st.History) != 8 || st.GetLearnedNet() != "examples/mnist/lenet_iter_10000.caffemodel" {
		t.Errorf("iter %d, %d history blobs, learned_net %q", st.GetIter(), len(st.History), st.GetLearnedNet())
	}
}

func TestMeanBinaryProto(t *testing.T) {
	b, err := ReadBlobProto(sharedFile(t, "trained/cifar10_mean.binaryproto"))
	if err != nil {
		t.Fatal(err)
	}
	if got := BlobShape(b); !slices.Equal(got, []int{1, 3, 32, 32}) {
		t.Errorf("shape %v, want [1 3 32 32]", got)
	}
	data, err := BlobData(b)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range data {
		if v < 0 || v > 255 {
			t.Fatalf("mean pixel %v outside 0..255", v)
		}
		sum += float64(v)
	}
	if mean := sum / float64(len(data)); mean < 100 || mean > 160 {
		t.Errorf("average of the mean image %.1f, want about 120-130", mean)
	}
	dst := filepath.Join(t.TempDir(), "mean.binaryproto")
	if err := WriteBlobProto(dst, b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBlobProto(dst)
	if err != nil || !proto.Equal(b, back) {
		t.Errorf("round trip: %v", err)
	}
}

// appendFloats appends float32 values as field num, packed or one by one.
func appendFloats(b []byte, num protowire.Number, packed bool, vals ...float32) []byte {
	if packed {
		var body []byte
		for _, v := range vals {
			body = protowire.AppendFixed32(body, math.Float32bits(v))
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, body)
	}
	for _, v := range vals {
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(v))
	}
	return b
}

func TestPackedAndUnpackedScalars(t *testing.T) {
	want := &caffepb.BlobProto{Data: []float32{1, 2, 3}}
	for _, packed := range []bool{true, false} {
		got := &caffepb.BlobProto{}
		if err := DecodeBinary("blob", appendFloats(nil, 5, packed, 1, 2, 3), got); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("packed=%v: got %v", packed, got)
		}
	}
	// loss_weight is declared unpacked; a packed encoding is read too.
	lp := &caffepb.LayerParameter{}
	if err := DecodeBinary("layer", appendFloats(nil, 5, true, 1, 0.5), lp); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(lp, &caffepb.LayerParameter{LossWeight: []float32{1, 0.5}}) {
		t.Errorf("packed loss_weight read as %v", lp)
	}
	// Writing follows the schema: packed for data, unpacked for loss_weight.
	if out, _ := EncodeBinary(want); !bytes.Equal(out, appendFloats(nil, 5, true, 1, 2, 3)) {
		t.Errorf("data not written packed: % x", out)
	}
	if out, _ := EncodeBinary(lp); !bytes.Equal(out, appendFloats(nil, 5, false, 1, 0.5)) {
		t.Errorf("loss_weight not written unpacked: % x", out)
	}
}

func TestUnknownFieldsSurvive(t *testing.T) {
	b := appendFloats(nil, 5, true, 1)
	b = protowire.AppendTag(b, 99, protowire.VarintType)
	b = protowire.AppendVarint(b, 7)
	m := &caffepb.BlobProto{}
	if err := DecodeBinary("blob", b, m); err != nil {
		t.Fatal(err)
	}
	if out, _ := EncodeBinary(m); !bytes.Equal(out, b) {
		t.Errorf("unknown field lost: % x, want % x", out, b)
	}
}

func TestCorruptBinaryFiles(t *testing.T) {
	orig, err := os.ReadFile(sharedFile(t, "trained/lenet_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	hugeLayer := protowire.AppendTag(nil, 100, protowire.BytesType)
	hugeLayer = protowire.AppendVarint(hugeLayer, 1<<40)
	hugeData := protowire.AppendTag(nil, 5, protowire.BytesType)
	hugeData = protowire.AppendVarint(hugeData, 1<<31)
	hugeData = append(hugeData, 0, 0, 0, 0)
	badPacked := protowire.AppendTag(nil, 5, protowire.BytesType)
	badPacked = protowire.AppendBytes(badPacked, []byte{1, 2, 3})
	tests := []struct {
		name string
		data []byte
		msg  proto.Message
		want string
	}{
		{"truncated by one byte", orig[:len(orig)-1], &caffepb.NetParameter{}, "(layer[8]): declares 48 bytes, only 47 remain"},
		{"truncated in the middle", orig[:len(orig)/2], &caffepb.NetParameter{}, "at byte 102678 (layer[5]): declares 1602103 bytes"},
		{"huge layer length", hugeLayer, &caffepb.NetParameter{}, "byte 0 (layer[0]): declares 1099511627776 bytes, only 0 remain"},
		{"huge packed data", hugeData, &caffepb.BlobProto{}, "(data[0]): declares 2147483648 bytes, only 4 remain"},
		{"packed floats not a multiple of 4", badPacked, &caffepb.BlobProto{}, "packed 4-byte values take 3 bytes"},
		{"bad tag", []byte{0x80}, &caffepb.NetParameter{}, "byte 0: bad field tag"},
		{"field number zero", []byte{0x00, 0x01}, &caffepb.NetParameter{}, "bad field tag"},
		{"truncated fixed32", []byte{0x2d, 1, 2}, &caffepb.BlobProto{}, "a 4-byte value needs 4 bytes, 2 remain"},
		{"stray end group", []byte{0x0c}, &caffepb.BlobProto{}, "unexpected wire type 4"},
		{"missing required field", protowire.AppendBytes(protowire.AppendTag(nil, 148, protowire.BytesType), nil), &caffepb.LayerParameter{}, "required field caffe.ClipParameter.min not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := DecodeBinary("bad.caffemodel", tt.data, tt.msg)
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "caffe: bad.caffemodel") {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
	var de *DecodeError
	err = DecodeBinary("x", orig[:len(orig)/2], &caffepb.NetParameter{})
	if !errors.As(err, &de) || de.Offset != 102678 || de.Field != "layer[5]" {
		t.Errorf("error %#v does not locate the damage", err)
	}
}

// Cutting a file anywhere gives an error, unless the cut falls between two
// top-level fields (the rest is then a valid, shorter net); it never
// panics.
func TestTruncationGivesErrors(t *testing.T) {
	orig, err := os.ReadFile(sharedFile(t, "trained/lenet_v1_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	boundaries := map[int]bool{0: true}
	for off := 0; off < len(orig); {
		_, _, n := protowire.ConsumeField(orig[off:])
		if n < 0 {
			t.Fatal("the sample file does not parse")
		}
		off += n
		boundaries[off] = true
	}
	// The first layers hold no big blobs: try every cut there, then a
	// sample of cuts through the weights.
	for n := 0; n < len(orig); n++ {
		if n > 2000 && n%997 != 0 && !boundaries[n] {
			continue
		}
		_, err := ParseCaffemodel("cut", orig[:n])
		if boundaries[n] && err != nil {
			t.Errorf("cut between fields at %d: %v", n, err)
		}
		if !boundaries[n] && err == nil {
			t.Errorf("cut inside a field at %d bytes read without error", n)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadCaffemodel(filepath.Join(dir, "missing.caffemodel"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "caffe: ") {
		t.Errorf("missing file: %v", err)
	}
	text := filepath.Join(dir, "net.prototxt")
	os.WriteFile(text, []byte("name: \"not binary\"\n"), 0o644)
	if _, err := ReadCaffemodel(text); err == nil {
		t.Error("a text file read as a caffemodel without error")
	}
}

func TestAtomicWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.caffemodel")
	os.WriteFile(path, []byte("old contents"), 0o644)
	np := &caffepb.NetParameter{Name: proto.String("new")}
	if err := WriteCaffemodel(path, np); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	back, err := ReadCaffemodel(path)
	if err != nil || back.GetName() != "new" {
		t.Errorf("read back %v, %v", back, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	if err := WriteCaffemodel(filepath.Join(dir, "no", "such", "dir.caffemodel"), np); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
	// A message that cannot be encoded leaves the old file alone.
	bad := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{{ClipParam: &caffepb.ClipParameter{}}}}
	if err := WriteCaffemodel(path, bad); err == nil || !strings.Contains(err.Error(), "required field") {
		t.Errorf("encoding a message missing required fields: %v", err)
	}
	if back, _ := ReadCaffemodel(path); back.GetName() != "new" {
		t.Error("a failed write damaged the existing file")
	}
}
