package data

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// globAny reports whether any of the patterns matches a file in dir.
func globAny(dir string, patterns ...string) bool {
	for _, p := range patterns {
		if m, _ := filepath.Glob(filepath.Join(dir, p)); len(m) > 0 {
			return true
		}
	}
	return false
}

// partFiles lists the data files of a folder written as a set of parts,
// as Spark and rdd's SaveAs functions write them: every file whose name
// does not start with '_' or '.' (markers such as _SUCCESS, hidden and
// checksum files), sorted by name, for which keep is true (nil keeps
// all). A path that is a file is its only part.
func partFiles(path string, keep func(name string) bool) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".crc") {
			continue
		}
		if keep == nil || keep(name) {
			out = append(out, filepath.Join(path, name))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, inFile(path, fmt.Errorf("the folder holds no data files"))
	}
	return out, nil
}
