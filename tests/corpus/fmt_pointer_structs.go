//go:build ignore

// fmt prints a pointer to a struct, as its argument, as & and the struct,
// the fields with their methods (String, Error); %#v with its type.
package main

import (
	"errors"
	"fmt"
)

type Vec struct{ X, Y int }

func (v Vec) String() string { return fmt.Sprintf("<%d,%d>", v.X, v.Y) }

type Body struct {
	Name string
	Pos  Vec
	Err  error
	n    int
}

type Node struct {
	Val  Vec
	Next *Node
}

func main() {
	b := &Body{Name: "sun", Pos: Vec{1, 2}, Err: errors.New("hot"), n: 3}
	fmt.Println(b)
	fmt.Printf("%v|%+v|%s|%T\n", b, b, b, b)
	fmt.Printf("%#v\n", &Vec{1, 2})
	var none *Body
	fmt.Println(none)
	fmt.Printf("%v %+v %T\n", none, none, none)
	var a any = b
	fmt.Println(a)
	fmt.Printf("%+v\n", a)
	n := &Node{Val: Vec{3, 4}}
	fmt.Println(n)
	s := fmt.Sprint(b)
	fmt.Println(len(s), s)
	fmt.Printf("%d\n", &Vec{5, 6})
	fmt.Println(&struct{ V Vec }{Vec{7, 8}})
	type W struct{ Fn func() }
	var w W
	fmt.Printf("%T %T %T\n", nil, w, &w)
}
