package repl

import (
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// Errors about unknown names say which known name was probably meant.

var (
	noSymbol  = regexp.MustCompile(`package (\w+) "([^"]+)" has no symbol (\w+)`)
	undefined = regexp.MustCompile(`undefined: (\w+)$`)
	// undefinedMember is the type checker's message for a package
	// member that does not exist.
	undefinedMember = regexp.MustCompile(`undefined: (\w+)\.(\w+)$`)
)

// suggest appends "did you mean ...?" to msg when it is about an unknown
// name close to a known one.
func (s *Session) suggest(msg string) string {
	first, rest, _ := strings.Cut(msg, "\n")
	if m := noSymbol.FindStringSubmatch(first); m != nil {
		for key, syms := range s.exports {
			if key == m[2]+"/"+m[1] {
				var names []string
				for n := range syms {
					if !strings.HasPrefix(n, "_") {
						names = append(names, n)
					}
				}
				if best := closest(m[3], names); best != "" {
					first += "; did you mean " + m[1] + "." + best + "?"
				}
			}
		}
	} else if m := undefinedMember.FindStringSubmatch(first); m != nil {
		if path := s.imported[inputFile][m[1]]; path != "" {
			if pkg, err := sharedImporter().Import(path); err == nil {
				var names []string
				for _, n := range pkg.Scope().Names() {
					if token.IsExported(n) {
						names = append(names, n)
					}
				}
				if best := closest(m[2], names); best != "" {
					first += "; did you mean " + m[1] + "." + best + "?"
				}
			}
		}
	} else if m := undefined.FindStringSubmatch(first); m != nil {
		var names []string
		for _, d := range s.names {
			names = append(names, d.name)
		}
		for name := range s.imported[inputFile] {
			names = append(names, name)
		}
		if best := closest(m[1], names); best != "" {
			first += "; did you mean " + best + "?"
		}
	}
	if rest != "" {
		return first + "\n" + rest
	}
	return first
}

// closest returns the name nearest to word (case-insensitive edit
// distance at most 2, and less than half its length), or "".
func closest(word string, names []string) string {
	sort.Strings(names)
	best, bestD := "", 3
	for _, n := range names {
		if n == word {
			continue
		}
		d := distance(strings.ToLower(word), strings.ToLower(n))
		if d < bestD && 2*d < len(word) {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
