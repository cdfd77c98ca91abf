//go:build ignore

// A type switch branches on the dynamic type.
package main

import "fmt"

type celsius float64

func do(i interface{}) string {
	switch v := i.(type) {
	case int:
		return fmt.Sprintf("twice %v is %v", v, v*2)
	case string:
		return fmt.Sprintf("%q is %v bytes long", v, len(v))
	case celsius:
		return fmt.Sprintf("%.1f degrees", float64(v))
	case nil:
		return "nil"
	case error:
		return "error: " + v.Error()
	case []int, map[string]int:
		return fmt.Sprintf("a collection %v", v)
	default:
		return fmt.Sprintf("I don't know about type %T!", v)
	}
}

func main() {
	fmt.Println(do(21))
	fmt.Println(do("hello"))
	fmt.Println(do(celsius(21.5)))
	fmt.Println(do(nil))
	fmt.Println(do(fmt.Errorf("bad %d", 1)))
	fmt.Println(do([]int{1}))
	fmt.Println(do(true))
}
