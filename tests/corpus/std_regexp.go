//go:build ignore

// Matching and replacing with regexp.
package main

import (
	"fmt"
	"regexp"
)

func main() {
	re := regexp.MustCompile(`(\w+)@(\w+)\.com`)
	text := "mail ann@example.com or bob@test.com"
	fmt.Println(re.MatchString(text))
	fmt.Println(re.FindAllString(text, -1))
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		fmt.Println(m[1], m[2])
	}
	fmt.Println(re.ReplaceAllString(text, "$1 at $2"))
	_, err := regexp.Compile(`a(b`)
	fmt.Println(err)
}
