//go:build ignore

// Functions, methods and types that use types and constants declared
// further down the file, as Go allows at the package level.
package main

import "fmt"

func describe(s Shape) string {
	return fmt.Sprintf("%s with area %.1f", s.Name(), s.Area())
}

func newAccount(owner string) *Account {
	return &Account{Owner: owner, History: []Txn{{Kind: Open}}}
}

func (r Rect) Area() float64 { return r.W * r.H * Scale / Scale }
func (r Rect) Name() string  { return "rect" }

type Account struct {
	Owner   string
	History []Txn
}

func (k Kind) String() string { return [...]string{"open", "deposit"}[k] }

type Txn struct {
	Kind   Kind
	Amount Money
}

type Money int

type Kind int

const (
	Open Kind = iota
	Deposit
)

type Shape interface {
	Area() float64
	Name() string
}

type Rect struct{ W, H float64 }

const Scale = 2

func main() {
	fmt.Println(describe(Rect{3, 4}))
	a := newAccount("ann")
	a.History = append(a.History, Txn{Deposit, 50})
	fmt.Printf("%+v\n", *a)
	fmt.Println(a.History[1].Kind, len(a.History))
}
