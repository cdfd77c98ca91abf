//go:build ignore

// Method values bind a receiver; method expressions take it as the first argument.
package main

import "fmt"

type Point struct{ X, Y int }

func (p Point) Dist(q Point) int {
	dx, dy := p.X-q.X, p.Y-q.Y
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	return dx + dy
}

func (p *Point) Move(dx int) { p.X += dx }

func main() {
	p := Point{1, 2}
	fromP := p.Dist
	fmt.Println(fromP(Point{4, 6}))
	dist := Point.Dist
	fmt.Println(dist(Point{}, Point{3, 3}))
	move := (*Point).Move
	move(&p, 10)
	bound := p.Move
	bound(5)
	fmt.Println(p)
}
