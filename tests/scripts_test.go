package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// script is a test script: its expected output, exit status and
// arguments, from its trailing comments:
//
//	// Args: a b
//	// Exit: 1
//	// Output:
//	// expected lines
type script struct {
	output string
	exit   int
	args   []string
}

func parseScript(t *testing.T, path string) script {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s script
	lines := strings.Split(string(src), "\n")
	out := -1
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "// Args:"):
			s.args = strings.Fields(strings.TrimPrefix(line, "// Args:"))
		case strings.HasPrefix(line, "// Exit:"):
			s.exit, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "// Exit:")))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, i+1, err)
			}
		case line == "// Output:":
			out = i + 1
		}
	}
	if out < 0 {
		t.Fatalf("%s has no // Output: comment", path)
	}
	var want []string
	for _, line := range lines[out:] {
		if !strings.HasPrefix(line, "//") {
			break
		}
		line = strings.TrimPrefix(line, "//")
		want = append(want, strings.TrimPrefix(line, " "))
	}
	s.output = strings.Join(want, "\n")
	return s
}

// TestScripts runs tests/scripts/*.go through the shell and compares
// their output with their // Output: comments.
func TestScripts(t *testing.T) {
	dir := filepath.Join(repoRoot, "tests")
	files, err := filepath.Glob(filepath.Join(dir, "scripts", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	for _, file := range files {
		rel, _ := filepath.Rel(dir, file)
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			s := parseScript(t, file)
			args := append([]string{"--master", "local[2]", rel}, s.args...)
			res := runShell(t, dir, "", time.Minute, args...)
			got := normalize(res.out)
			if got != s.output {
				t.Errorf("output:\n%s\nwant:\n%s", got, s.output)
			}
			if res.code != s.exit {
				t.Errorf("exit status %d, want %d", res.code, s.exit)
			}
		})
	}
}

// normalize drops trailing space on each line and trailing blank lines.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
