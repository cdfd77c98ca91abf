package format

import (
	"fmt"
	"sort"
	"strings"
)

// Position is a place in a text file: 1-based line and column (columns
// count bytes). The zero Position means "no position".
type Position struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether the position names a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// String renders file:line:col, or as much of it as is known.
func (p Position) String() string {
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// ParseError is an error in a text file (a .prototxt) at a position.
type ParseError struct {
	Pos Position
	Msg string
}

func (e *ParseError) Error() string {
	if e.Pos.File == "" && !e.Pos.IsValid() {
		return "caffe: " + e.Msg
	}
	return "caffe: " + e.Pos.String() + ": " + e.Msg
}

// SortedList renders names as a sorted, comma-separated list.
func SortedList(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// closestName returns the candidate closest to name when it is close enough to
// be a likely typo, or "". Case differences do not count.
func closestName(name string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := 2
	if len(name) >= 8 {
		limit = 3
	}
	if bestDist >= 0 && bestDist <= limit {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance, counting a swap of two
// neighbouring characters as one edit.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean formats a suggestion for an error message: ' (did you mean
// "x"?)' when a candidate is close to name (a likely typo), else "".
func DidYouMean(name string, candidates []string) string {
	if s := closestName(name, candidates); s != "" && s != name {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
