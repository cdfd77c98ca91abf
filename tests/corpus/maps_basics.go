//go:build ignore

// Map literals, insertion, lookup, update and len.
package main

import "fmt"

type Vertex struct{ Lat, Long float64 }

func main() {
	m := map[string]Vertex{
		"Bell Labs": {40.68433, -74.39967},
		"Google":    {37.42202, -122.08408},
	}
	fmt.Println(m["Bell Labs"])
	m["Home"] = Vertex{1, 2}
	fmt.Println(len(m))
	ages := make(map[string]int)
	ages["ann"] = 30
	ages["ann"]++
	fmt.Println(ages["ann"], ages["nobody"])
	fmt.Println(m)
}
