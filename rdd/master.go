package rdd

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// MasterFunc opens the engine for a master URL, such as "mpi".
type MasterFunc func(master string) (Engine, error)

var masters = struct {
	sync.Mutex
	m map[string]MasterFunc
}{m: map[string]MasterFunc{}}

// RegisterMaster makes NewContext accept the master name, and masters
// that start with name followed by ':' or '[', by calling open. Package
// rdd/mpi registers "mpi" this way in binaries built with -tags mpi. A
// name registered twice, or one of the local forms, is an error.
func RegisterMaster(name string, open MasterFunc) error {
	if name == "" || strings.ContainsAny(name, ":[]") || name == "local" || open == nil {
		return fmt.Errorf("rdd: RegisterMaster(%q): the name must be non-empty, other than local, without ':', '[' or ']', and open non-nil", name)
	}
	masters.Lock()
	defer masters.Unlock()
	if _, dup := masters.m[name]; dup {
		return fmt.Errorf("rdd: RegisterMaster(%q): registered twice", name)
	}
	masters.m[name] = open
	return nil
}

// Masters lists the masters NewContext accepts, sorted: the local forms
// and the registered names.
func Masters() []string {
	masters.Lock()
	defer masters.Unlock()
	out := []string{"local", "local[*]", "local[N]"}
	for name := range masters.m {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// newEngine opens the engine a master URL names.
func newEngine(m string) (Engine, error) {
	if m == "" || m == "local" || strings.HasPrefix(m, "local[") {
		n, err := parseLocal(m)
		if err != nil {
			return nil, err
		}
		return newLocalEngine(n), nil
	}
	name := m
	if i := strings.IndexAny(m, ":["); i >= 0 {
		name = m[:i]
	}
	masters.Lock()
	open := masters.m[name]
	masters.Unlock()
	if open != nil {
		e, err := open(m)
		if err != nil {
			return nil, fmt.Errorf("rdd: master %q: %w", m, err)
		}
		return e, nil
	}
	if name == "mpi" {
		return nil, fmt.Errorf("rdd: master %q is not available in this binary: rebuild it with -tags mpi (for example go build -tags mpi ./cmd/sparknet-shell, which needs Open MPI or MPICH and pkg-config) and start it with mpirun", m)
	}
	return nil, fmt.Errorf("rdd: unknown master %q (known: %s; other engines are passed in Options.Engine)", m, strings.Join(Masters(), ", "))
}

// parseLocal returns the number of workers a local master asks for.
func parseLocal(m string) (int, error) {
	switch {
	case m == "" || m == "local[*]":
		return runtime.NumCPU(), nil
	case m == "local":
		return 1, nil
	case strings.HasPrefix(m, "local[") && strings.HasSuffix(m, "]"):
		n, err := strconv.Atoi(m[len("local[") : len(m)-1])
		if err != nil || n < 1 {
			return 0, fmt.Errorf("rdd: master %q: the worker count must be a positive integer or *", m)
		}
		return n, nil
	}
	return 0, fmt.Errorf("rdd: unknown master %q (known: %s)", m, strings.Join(Masters(), ", "))
}
