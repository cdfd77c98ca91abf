//go:build ignore

// Constants as flags and units: iota with shifts, a skipped value, bit
// sets with String, a float type whose constants shift (KB Size = 1 <<
// (10 * iota)), and an array indexed by constants.
package main

import (
	"fmt"
	"strings"
)

type Perm uint8

const (
	Read Perm = 1 << iota
	Write
	Exec
	_
	Admin
)

func (p Perm) String() string {
	if p == 0 {
		return "none"
	}
	var parts []string
	for _, f := range []struct {
		p Perm
		n string
	}{{Read, "r"}, {Write, "w"}, {Exec, "x"}, {Admin, "A"}} {
		if p&f.p != 0 {
			parts = append(parts, f.n)
		}
	}
	if rest := p &^ (Read | Write | Exec | Admin); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

type Size float64

const (
	_       = iota
	KB Size = 1 << (10 * iota)
	MB
	GB
)

func (s Size) String() string {
	switch {
	case s >= GB:
		return fmt.Sprintf("%.1fGB", s/GB)
	case s >= MB:
		return fmt.Sprintf("%.1fMB", s/MB)
	case s >= KB:
		return fmt.Sprintf("%.1fKB", s/KB)
	}
	return fmt.Sprintf("%.0fB", float64(s))
}

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

var dayNames = [...]string{Sunday: "Sun", Monday: "Mon", Tuesday: "Tue"}

func (d Weekday) String() string { return dayNames[d] }

func main() {
	p := Read | Exec
	fmt.Println(p, Perm(0), Read|Write|Exec|Admin, Perm(8), p&Write == 0)
	fmt.Printf("%v %d %08b %s %q\n", p, p, p, Admin, Write)
	p |= Write
	p &^= Read
	fmt.Println(p, []Perm{Read, Admin}, map[string]Perm{"x": Exec})
	fmt.Println(Size(1536), Size(3*MB), Size(2.5*GB), Size(100), KB, []Size{KB, MB})
	fmt.Println(Monday, Weekday(2), len(dayNames), fmt.Sprintf("%v|%-5v|%5v|", Sunday, Monday, Tuesday))
	type pair struct {
		d Weekday
		p Perm
	}
	fmt.Printf("%v %+v\n", pair{Monday, Write}, []pair{{Tuesday, Exec}})
	var s fmt.Stringer = Tuesday
	fmt.Println(s, s.String())
}
