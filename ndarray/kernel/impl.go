package kernel

import (
	"fmt"
	"os"
	"strings"
)

// KernelsEnv names the environment variable that selects the kernels for a
// whole program (see SetImplementation).
const KernelsEnv = "SPARKNET_KERNELS"

// envErr is why the choice KernelsEnv asked for was not made.
var envErr error

func init() { envErr = chooseFromEnv(os.Getenv(KernelsEnv)) }

// chooseFromEnv selects the implementation a value of KernelsEnv names;
// an empty value keeps the default.
func chooseFromEnv(value string) error {
	name := strings.ToLower(strings.TrimSpace(value))
	if name == "" {
		return nil
	}
	if _, err := SetImplementation(name); err != nil {
		return fmt.Errorf("%s=%s: %w", KernelsEnv, value, err)
	}
	return nil
}

// ImplementationError returns why the implementation named by the
// environment variable SPARKNET_KERNELS is not in use, or nil.
func ImplementationError() error { return envErr }

// active is the implementation the exported functions run (its vec field
// the vector primitives): the fastest of available() unless
// SetImplementation chose another.
var active = available()[0]

// Implementation returns the name of the kernels in use: "avx512"
// (AVX-512F), "avx2" (AVX2 and FMA) or "go" (portable Go, also what the
// noasm build tag selects).
func Implementation() string { return active.name }

// Implementations returns the names of the kernels this CPU and build can
// run, fastest first; the last is always "go".
func Implementations() []string {
	var names []string
	for _, im := range available() {
		names = append(names, im.name)
	}
	return names
}

// SetImplementation selects the kernels by name (one of Implementations)
// and returns the name of the previous selection. It is meant for tests
// and benchmarks and must not run concurrently with other calls into the
// package.
func SetImplementation(name string) (previous string, err error) {
	for _, im := range available() {
		if im.name == name {
			previous = active.name
			active = im
			return previous, nil
		}
	}
	return "", fmt.Errorf("kernel: unknown or unsupported implementation %q (this CPU runs %s)", name, strings.Join(Implementations(), ", "))
}
