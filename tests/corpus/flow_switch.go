//go:build ignore

// switch on a value: cases with lists, no fallthrough by default.
package main

import "fmt"

func kind(c byte) string {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return "vowel"
	case ' ':
		return "space"
	default:
		return "consonant"
	}
}

func main() {
	for _, c := range []byte("go up") {
		fmt.Println(string(c), kind(c))
	}
	switch os := "plan9"; os {
	case "darwin":
		fmt.Println("macOS")
	case "linux":
		fmt.Println("Linux")
	default:
		fmt.Printf("%s.\n", os)
	}
}
