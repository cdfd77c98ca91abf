package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// finalWeights returns the digest line of the main job's final weights.
func finalWeights(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`final weights: \d+ values, sha256 [0-9a-f]{64}`).FindString(out)
	if m == "" {
		t.Fatalf("no final weights line:\n%s", out)
	}
	return m
}

// finalAccuracy returns the main job's final accuracy line, without the
// time it took.
func finalAccuracy(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`test accuracy 0\.\d+ on 10000 images after \d+ iterations per replica`).FindString(out)
	if m == "" {
		t.Fatalf("no final accuracy line:\n%s", out)
	}
	return m
}

// The main job with a checkpoint prefix, stopped after 2 of 4 rounds and
// restarted with --resume, must end with the weights of an uninterrupted
// run, having run only the rounds that were left.
func TestMainJobResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LeNet for a few seconds, three times")
	}
	dir := t.TempDir()
	script := repoRoot + "/scripts/mnist.go"
	job := func(args ...string) string {
		t.Helper()
		r := runShell(t, dir, "", 5*time.Minute, append([]string{"--master", "local[2]"}, args...)...)
		if r.code != 0 {
			t.Fatalf("sparknet-shell %q: exit status %d:\n%s", args, r.code, r.out)
		}
		return r.out
	}
	whole := job(script, "4", "5", "whole/lenet")
	stopped := job(script, "2", "5", "cut/lenet")
	resumed := job("--resume", script, "4", "5", "cut/lenet")

	if !strings.Contains(resumed, "resumed from the checkpoint of round 2") || strings.Contains(resumed, "round 3/") {
		t.Errorf("the resumed run did not continue from round 2 (it should run rounds 3 and 4 as 1/2 and 2/2):\n%s", resumed)
	}
	if w, s := finalWeights(t, whole), finalWeights(t, stopped); w == s {
		t.Fatalf("2 rounds and 4 rounds end with the same weights (%s); the comparison below would prove nothing", w)
	}
	if got, want := finalWeights(t, resumed), finalWeights(t, whole); got != want {
		t.Errorf("stopped after 2 rounds and resumed, the run ends with\n%s\nuninterrupted with\n%s", got, want)
	}
	if got, want := finalAccuracy(t, resumed), finalAccuracy(t, whole); got != want {
		t.Errorf("resumed: %s; uninterrupted: %s", got, want)
	}
	for _, f := range []string{"whole/lenet_round_4.sparknet", "cut/lenet_round_2.sparknet", "cut/lenet_round_4.sparknet", "cut/lenet_round_4.part1.solverstate"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("checkpoint file: %v", err)
		}
	}
}
