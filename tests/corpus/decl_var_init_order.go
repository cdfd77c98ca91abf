//go:build ignore

package main

import (
	"fmt"
	"os"
	"strings"
)

var (
	_        = register("first")
	order    []string
	a, b     = pair()
	c        = a + b + len(handlers)
	handlers = map[string]func(int) int{
		"dbl": func(x int) int { return 2 * x },
		"inc": func(x int) int { return x + 1 },
	}
	upper   = strings.ToUpper
	_, rest = split("k=v")
	args    = len(os.Args) > 0
)

func register(s string) int { order = append(order, s); return len(order) }

func pair() (int, int) { register("pair"); return 3, 4 }

func split(s string) (string, string) { k, v, _ := strings.Cut(s, "="); register("split"); return k, v }

func init() {
	fmt.Println("init", order, c)
}

func main() {
	fmt.Println(a, b, c, handlers["dbl"](5), handlers["inc"](5), upper("x"), rest, args, order)
}
