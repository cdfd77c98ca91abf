//go:build ignore

// Structs inside structs, slices of structs and updates through indexes.
package main

import "fmt"

type Address struct {
	City string
	Zip  string
}

type Employee struct {
	Name string
	Home Address
	Pay  int
}

type Team struct {
	Lead    Employee
	Members []Employee
}

func main() {
	t := Team{
		Lead: Employee{"Ann", Address{"Oslo", "0150"}, 100},
		Members: []Employee{
			{Name: "Ben", Pay: 80},
			{Name: "Cid", Home: Address{City: "Rome"}, Pay: 70},
		},
	}
	t.Members[0].Home.City = "Lima"
	total := t.Lead.Pay
	for i := range t.Members {
		t.Members[i].Pay += 5
		total += t.Members[i].Pay
	}
	fmt.Println(t.Lead.Home.City, t.Members[0].Home.City, t.Members[1].Home.City, total)
	fmt.Printf("%+v\n", t.Members[1])
}
