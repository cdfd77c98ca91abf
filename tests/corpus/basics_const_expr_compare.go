//go:build ignore

// Constants of a declared type made by expressions (iota + 1, 1 << iota,
// "r" + "ed") compare with == and != as their values do.
package main

import "fmt"

const (
	A int = iota + 1
	B
)

const F float64 = 1.0 / 4

type Color string

const (
	Red   Color = "r" + "ed"
	Green Color = "green"
)

type Flag uint8

const (
	F1 Flag = 1 << iota
	F2
	F3
)

type Kind int

const (
	Deposit Kind = iota + 1
	Withdrawal
)

func apply(balance int, k Kind, amount int) int {
	if k == Deposit {
		return balance + amount
	}
	if k != Withdrawal {
		return balance
	}
	return balance - amount
}

func main() {
	b := B
	fmt.Println(b == B, B == 2, F == 0.25)
	c := Red
	fmt.Println(c == Red, Red == "red", Green == "green", c != Green)
	f := F1 | F3
	fmt.Println(f&F3 != 0, f == 5, F2 == 2, f&F2 == 0, (F2) == 2)
	var arr [B]int
	fmt.Println(len(arr))
	balance := apply(apply(0, Deposit, 100), Withdrawal, 30)
	fmt.Println(balance, Deposit == 1, Withdrawal == Kind(2))
	names := map[Kind]string{Deposit: "deposit", Withdrawal: "withdrawal"}
	_, ok := names[Kind(3)]
	fmt.Println(names[Withdrawal], len(names), ok)
	var v any = Withdrawal
	switch v {
	case Deposit:
		fmt.Println("any: deposit")
	case Withdrawal:
		fmt.Println("any: withdrawal")
	}
	switch k := Withdrawal; k {
	case Deposit:
		fmt.Println("deposit")
	case Withdrawal:
		fmt.Println("withdrawal")
	}
}
