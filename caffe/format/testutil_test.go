package format

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// sharedModels returns the folder of real Caffe files kept beside the
// repository (../shared/caffe-models), skipping the test when it is absent.
func sharedModels(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "caffe-models")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared Caffe files not available: %v", err)
	}
	return dir
}

// sharedFile returns a file under ../shared/caffe-models.
func sharedFile(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(sharedModels(t), filepath.FromSlash(rel))
}

// sharedPrototxts lists every .prototxt under ../shared/caffe-models.
func sharedPrototxts(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(sharedModels(t), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".prototxt" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .prototxt files under the shared folder")
	}
	return files
}

// mustParseNet parses a net definition given inline in a test.
func mustParseNet(t testing.TB, src string) *caffepb.NetParameter {
	t.Helper()
	np, err := ParseNetParameter("test.prototxt", []byte(src))
	if err != nil {
		t.Fatalf("parsing net: %v", err)
	}
	return np
}

// isSolver reports whether a shared file is a solver definition.
func isSolver(path string) bool {
	return strings.Contains(filepath.Base(path), "solver")
}
