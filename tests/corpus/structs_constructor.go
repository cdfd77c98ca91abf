//go:build ignore

// Constructor functions and methods that validate.
package main

import (
	"errors"
	"fmt"
)

type Rect struct {
	w, h float64
}

func NewRect(w, h float64) (*Rect, error) {
	if w <= 0 || h <= 0 {
		return nil, errors.New("sides must be positive")
	}
	return &Rect{w, h}, nil
}

func (r *Rect) Area() float64      { return r.w * r.h }
func (r *Rect) Perimeter() float64 { return 2 * (r.w + r.h) }
func (r *Rect) Scale(f float64)    { r.w *= f; r.h *= f }

func main() {
	r, err := NewRect(3, 4)
	fmt.Println(r.Area(), r.Perimeter(), err)
	r.Scale(2)
	fmt.Println(r.Area())
	_, err = NewRect(-1, 2)
	fmt.Println(err)
}
