//go:build ignore

// A panic raised by a deferred call, with a recover deferred before it:
// the recover takes the newest panic, the deferred calls after the panic
// still run, and named results set by the recovering call are returned.
package main

import (
	"errors"
	"fmt"
	"sync"
)

var log []string

func cleanup(name string) { log = append(log, "cleanup "+name) }

func failingClose() { panic("close failed") }

func second() {
	defer func() { fmt.Println("recovered:", recover()) }()
	defer func() { panic("second") }()
}

func both() {
	defer func() { fmt.Println("recovered:", recover()) }()
	defer cleanup("both")
	defer failingClose()
	panic("first")
}

func safe() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("safe: %v", r)
		}
	}()
	defer cleanup("safe")
	defer failingClose()
	return nil
}

func quiet() (n int) {
	defer func() {
		if r := recover(); r != nil {
			n = -1
		}
	}()
	defer cleanup("quiet")
	return 42
}

func body() (err error) {
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = errors.New(fmt.Sprint("body: ", r))
		}
	}()
	defer cleanup("body")
	var m map[string]int
	m["x"] = 1
	return nil
}

func nested() (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprint("nested: ", r)
		}
	}()
	defer func() {
		defer cleanup("inner")
		panic("from a nested defer")
	}()
	return "fine"
}

func main() {
	second()
	both()
	fmt.Println(safe())
	fmt.Println(quiet())
	fmt.Println(body())
	fmt.Println(nested())
	for _, l := range log {
		fmt.Println(l)
	}
}
