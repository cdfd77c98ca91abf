//go:build ignore

// A flag the script does not define ends it as a Go program ends: the
// error and the usage on standard error, exit status 2.
import "flag"

n := flag.Int("n", 1, "how many")
flag.Parse()
fmt.Println("not reached", *n)

// Args: -m 3
// Exit: 2
// Output:
// flag provided but not defined: -m
// Usage of scripts/flags_bad.go:
//   -n int
//     	how many (default 1)
