//go:build ignore

// Maps print their keys with the keys' String methods, in the keys'
// order: an enum of cards' suits, named strings, structs with such
// fields, maps in maps and in structs.
package main

import (
	"fmt"
	"strings"
)

type Suit int

const (
	Clubs Suit = iota
	Diamonds
	Hearts
	Spades
)

func (s Suit) String() string { return [...]string{"♣", "♦", "♥", "♠"}[s] }

type Level string

func (l Level) String() string { return strings.ToUpper(string(l)) }

type Card struct {
	Rank int
	Suit Suit
}

type Hand struct {
	Counts map[Suit]int
}

func main() {
	count := map[Suit]int{Spades: 3, Hearts: 1, Clubs: 2}
	fmt.Println(count)
	fmt.Printf("%v|%d|%#v\n", count, count, count)
	fmt.Println(map[Card]bool{{10, Hearts}: true, {2, Clubs}: false})
	fmt.Println(map[string]map[Suit]int{"a": {Diamonds: 1, Clubs: 4}})
	fmt.Println(map[Level]int{"warn": 2, "info": 1, "error": 3})
	fmt.Printf("%+v\n", Hand{Counts: map[Suit]int{Hearts: 4, Diamonds: 5}})
	s := fmt.Sprint(map[Suit][]Suit{Clubs: {Hearts, Spades}})
	fmt.Println(s, len(s))
}
