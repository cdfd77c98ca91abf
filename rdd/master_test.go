package rdd

import (
	"errors"
	"strings"
	"testing"
)

func TestRegisterMaster(t *testing.T) {
	opened := ""
	open := func(m string) (Engine, error) {
		opened = m
		if strings.HasSuffix(m, "[bad]") {
			return nil, errors.New("bad size")
		}
		return newLocalEngine(2), nil
	}
	if err := RegisterMaster("test-cluster", open); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"test-cluster", "", "local", "a:b", "x[1]"} {
		if err := RegisterMaster(bad, open); err == nil {
			t.Errorf("RegisterMaster(%q): no error", bad)
		}
	}
	if err := RegisterMaster("nil-open", nil); err == nil {
		t.Error("RegisterMaster with a nil func: no error")
	}
	if got := strings.Join(Masters(), " "); !strings.Contains(got, "local[N] test-cluster") {
		t.Errorf("Masters() = %s", got)
	}
	tests := []struct {
		master string
		want   string // error text; "" for none
		opened string
	}{
		{"test-cluster", "", "test-cluster"},
		{"test-cluster:host:7077", "", "test-cluster:host:7077"},
		{"test-cluster[bad]", `master "test-cluster[bad]": bad size`, "test-cluster[bad]"},
		{"mpi", "rebuild it with -tags mpi", ""},
		{"mpi[4]", "rebuild it with -tags mpi", ""},
		{"yarn", "known: local, local[*], local[N], test-cluster", ""},
		{"local[x]", "positive integer or *", ""},
		{"localhost", "unknown master", ""},
	}
	for _, tt := range tests {
		t.Run(tt.master, func(t *testing.T) {
			opened = ""
			sc, err := NewContext(tt.master)
			if err == nil {
				defer sc.Close()
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("NewContext(%q): %v", tt.master, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("NewContext(%q): error %v, want one with %q", tt.master, err, tt.want)
			case opened != tt.opened:
				t.Errorf("NewContext(%q) opened %q", tt.master, opened)
			}
		})
	}
}
