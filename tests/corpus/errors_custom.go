//go:build ignore

// A custom error type carries details; the error interface is its Error method.
package main

import (
	"fmt"
	"time"
)

type MyError struct {
	When time.Time
	What string
}

func (e *MyError) Error() string {
	return fmt.Sprintf("at %s, %s", e.When.Format("2006-01-02"), e.What)
}

func run() error {
	return &MyError{time.Date(2009, 11, 10, 23, 0, 0, 0, time.UTC), "it didn't work"}
}

func main() {
	if err := run(); err != nil {
		fmt.Println(err)
		fmt.Printf("%T\n", err)
	}
}
