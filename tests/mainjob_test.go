package tests

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

// The README's main job, at a small setting: 3 rounds of 20 iterations.
// It must train, test on all 10,000 images and print the accuracy.
func TestMainJobScript(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet for a few seconds")
	}
	r := runShell(t, t.TempDir(), "", 5*time.Minute, repoRoot+"/scripts/mnist.go", "3", "20")
	if r.code != 0 {
		t.Fatalf("exit status %d:\n%s", r.code, r.out)
	}
	m := regexp.MustCompile(`test accuracy (0\.\d+) on 10000 images after 60 iterations per replica`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no final accuracy line:\n%s", r.out)
	}
	if acc, _ := strconv.ParseFloat(m[1], 64); acc < 0.85 {
		t.Errorf("accuracy %.4f after 60 iterations; LeNet reaches about 0.9 by then:\n%s", acc, r.out)
	}
	for _, want := range []string{"LeNet on MNIST:", "round 3/3", "test accuracy"} {
		if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(r.out) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
}
