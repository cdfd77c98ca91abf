package caffepb

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// protocVersion matches the header line naming the protoc that ran, which
// depends on the machine, not on the pinned generator.
var protocVersion = regexp.MustCompile(`(?m)^// \tprotoc +v.*\n`)

// TestGeneratedCodeIsFresh regenerates caffe.pb.go from caffe.proto with
// the pinned protoc-gen-go and fails when the committed file differs.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating needs a build of protoc-gen-go")
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc not installed (Debian: apt-get install protobuf-compiler)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	out := t.TempDir()
	cmd := exec.Command(goTool, "run", "./internal/protocgen", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("regenerating: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(filepath.Join(out, "caffe.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("caffe.pb.go")
	if err != nil {
		t.Fatal(err)
	}
	fresh = protocVersion.ReplaceAll(fresh, nil)
	committed = protocVersion.ReplaceAll(committed, nil)
	if !bytes.Equal(fresh, committed) {
		t.Error("caffe.pb.go is stale: run go generate ./caffe/caffepb and commit the result")
	}
}

// The descriptor carries Caffe's field numbers and defaults; spot-check a
// few that binary compatibility depends on.
func TestSchemaFacts(t *testing.T) {
	np := (&NetParameter{}).ProtoReflect().Descriptor()
	for name, num := range map[protoreflect.Name]int{"name": 1, "layers": 2, "input": 3, "input_dim": 4, "state": 6, "input_shape": 8, "layer": 100} {
		if fd := np.Fields().ByName(name); fd == nil || int(fd.Number()) != num {
			t.Errorf("NetParameter.%s: %v, want number %d", name, fd, num)
		}
	}
	bp := (&BlobProto{}).ProtoReflect().Descriptor()
	for _, name := range []protoreflect.Name{"data", "diff", "double_data", "double_diff"} {
		if !bp.Fields().ByName(name).IsPacked() {
			t.Errorf("BlobProto.%s is not packed", name)
		}
	}
	if (&LayerParameter{}).ProtoReflect().Descriptor().Fields().ByName("loss_weight").IsPacked() {
		t.Error("LayerParameter.loss_weight must be unpacked")
	}
	if got := (&SolverParameter{}).GetDelta(); got != 1e-8 {
		t.Errorf("delta default %v", got)
	}
	if got := (&NetState{}).GetPhase(); got != Phase_TEST {
		t.Errorf("NetState.phase default %v", got)
	}
	if got := (&V1LayerParameter{}).ProtoReflect().Descriptor().Fields().ByName("param").Number(); got != 1001 {
		t.Errorf("V1LayerParameter.param is field %d", got)
	}
}
