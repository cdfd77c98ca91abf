package tests

import (
	"os/exec"
	"testing"
)

// BenchmarkShellStartup runs sparknet-shell with one input that uses
// sparknet's packages, fmt and strings: the start-up, the type check of
// a first input (which loads the packages' types) and its run. The goal
// for the start-up to the first prompt is under 0.3 s.
func BenchmarkShellStartup(b *testing.B) {
	for range b.N {
		cmd := exec.Command(shellBin, "--master", "local[1]", "-e",
			`a := ndarray.Arange(0, 6, 1).Reshape(2, 3); fmt.Println(a.Shape(), strings.ToUpper("ok"), time.Second, sc.Workers())`)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
