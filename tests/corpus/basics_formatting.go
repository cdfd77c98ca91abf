//go:build ignore

// fmt verbs for the common types.
package main

import "fmt"

type pair struct {
	Key string
	Val int
}

func main() {
	p := pair{"k", 7}
	fmt.Printf("%v|%+v|%#v\n", p, p, p)
	fmt.Printf("%d|%5d|%-5d|%05d\n", 42, 42, 42, 42)
	fmt.Printf("%x|%X|%o|%b|%#x\n", 255, 255, 8, 5, 255)
	fmt.Printf("%f|%.2f|%8.3f|%e|%g\n", 3.14159, 3.14159, 3.14159, 1234.5678, 0.000012)
	fmt.Printf("%s|%q|%10s|%-10s|\n", "go", "go", "go", "go")
	fmt.Printf("%t|%c|%U|%p\n", true, 'G', 'G', nil)
	fmt.Printf("%v|%v|%d\n", []int{1, 2}, map[string]int{"b": 2, "a": 1}, []int{3})
	fmt.Printf("%6.2f%%\n", 12.345)
	s := fmt.Sprintf("%03d-%s", 7, "x")
	fmt.Println(s, len(s))
	fmt.Printf("%[2]d %[1]d\n", 1, 2)
}
