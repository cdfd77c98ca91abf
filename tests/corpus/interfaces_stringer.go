//go:build ignore

// A String method controls how fmt prints a value.
package main

import "fmt"

type Person struct {
	Name string
	Age  int
}

func (p Person) String() string { return fmt.Sprintf("%v (%v years)", p.Name, p.Age) }

type IPAddr [4]byte

func (ip IPAddr) String() string { return fmt.Sprintf("%d.%d.%d.%d", ip[0], ip[1], ip[2], ip[3]) }

func main() {
	a := Person{"Arthur Dent", 42}
	z := Person{"Zaphod Beeblebrox", 9001}
	fmt.Println(a, z)
	hosts := map[string]IPAddr{"loopback": {127, 0, 0, 1}, "googleDNS": {8, 8, 8, 8}}
	for _, name := range []string{"googleDNS", "loopback"} {
		fmt.Printf("%v: %v\n", name, hosts[name])
	}
	fmt.Printf("%s|%v|%d\n", a, []Person{z}, IPAddr{1, 2, 3, 4})
}
