// Command protocgen regenerates caffe.pb.go from caffe.proto.
//
// It builds protoc-gen-go from the version pinned in go.mod (so the output
// depends only on pinned versions, not on whatever plugin is installed) and
// runs protoc with it. Run it from the caffepb folder, as go generate does:
//
//	go run ./internal/protocgen [-out DIR]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	out := flag.String("out", ".", "folder to write caffe.pb.go to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "protocgen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		return fmt.Errorf("protoc not found (install Debian's protobuf-compiler): %w", err)
	}
	tmp, err := os.MkdirTemp("", "protocgen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	plugin := filepath.Join(tmp, "protoc-gen-go")
	build := exec.Command("go", "build", "-o", plugin, "google.golang.org/protobuf/cmd/protoc-gen-go")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building protoc-gen-go: %w", err)
	}

	gen := exec.Command(protoc,
		"--plugin=protoc-gen-go="+plugin,
		"--go_out="+out,
		"--go_opt=paths=source_relative",
		"-I", ".",
		"caffe.proto")
	gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("running protoc: %w", err)
	}
	return nil
}
