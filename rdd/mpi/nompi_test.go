//go:build !mpi || !cgo

package mpi

import (
	"errors"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/rdd"
)

func TestNotBuilt(t *testing.T) {
	if Built {
		t.Fatal("Built is true without the tag")
	}
	if _, err := World(); !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "-tags mpi") {
		t.Errorf("World() error %v, want ErrNotBuilt", err)
	}
	_, err := rdd.NewContext("mpi")
	if err == nil || !strings.Contains(err.Error(), "rebuild it with -tags mpi") {
		t.Errorf(`rdd.NewContext("mpi") error %v, want one that says to rebuild with -tags mpi`, err)
	}
}
