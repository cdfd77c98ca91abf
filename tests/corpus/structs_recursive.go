//go:build ignore

// A struct type may contain itself, through slices and maps, at any depth.
package main

import "fmt"

type Level int

func (l Level) String() string { return [...]string{"low", "high"}[l] }

type Node struct {
	Kids  []Node
	Level Level
}

type Dir struct {
	Name  string
	Files map[string][]Dir
}

func (n Node) count() int {
	c := 1
	for _, k := range n.Kids {
		c += k.count()
	}
	return c
}

func main() {
	n := Node{Level: 1, Kids: []Node{{Level: 0, Kids: []Node{{Level: 1}}}, {Level: 0}}}
	fmt.Println(n, n.count())
	fmt.Printf("%+v\n", n.Kids[1])
	d := Dir{Name: "root", Files: map[string][]Dir{"sub": {{Name: "leaf"}}}}
	fmt.Println(d)
}
