//go:build ignore

// A table of rows kept as []any, printed by helpers that take any: the
// rows' Stringer cells print by their String, as Go prints them.
package main

import (
	"fmt"
	"strings"
)

type Money int64

func (m Money) String() string { return fmt.Sprintf("$%d.%02d", m/100, m%100) }

type Status int

const (
	Open Status = iota
	Paid
	Void
)

func (s Status) String() string { return [...]string{"open", "paid", "void"}[s] }

type Customer struct {
	Name string
	City string
}

func (c Customer) String() string { return c.Name + " (" + c.City + ")" }

func cell(v any) string { return fmt.Sprint(v) }

func printRow(v any) { fmt.Println(v) }

func describe(v any) string { return fmt.Sprintf("%v [%T]", v, v) }

func main() {
	rows := [][]any{
		{1001, Customer{"Ada", "London"}, Money(12550), Paid},
		{1002, Customer{"Grace", "Arlington"}, Money(399), Open},
		{1003, &Customer{"Linus", "Helsinki"}, Money(100000), Void},
	}
	for _, r := range rows {
		printRow(r)
		var cells []string
		for _, c := range r {
			cells = append(cells, cell(c))
		}
		fmt.Println(strings.Join(cells, " | "))
	}
	fmt.Println(describe(rows[0]))
	fmt.Println(describe([]any{Paid, nil, "x"}))
	var total Money
	for _, r := range rows {
		if r[3].(Status) != Void {
			total += r[2].(Money)
		}
	}
	printRow([]any{"total", total})
	customers := []Customer{{"Ada", "London"}, {"Linus", "Helsinki"}}
	printRow(customers)
	fmt.Println(describe(customers), describe([]*Customer{&customers[1]}))
	var none []Customer
	fmt.Println(describe(none))
}
