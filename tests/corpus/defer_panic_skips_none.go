//go:build ignore

// A deferred call that panics does not stop the calls deferred before
// it: they run, and a recover among them gets the new panic; a recover
// that panics again still lets the cleanup deferred before it run (an
// Unlock, a Close), and the caller's recover gets the second panic.
package main

import (
	"errors"
	"fmt"
	"sync"
)

func noPriorPanic() {
	defer fmt.Println("cleanup: no prior panic")
	defer func() { panic("from a deferred call") }()
	fmt.Println("body")
}

func repanic() {
	defer fmt.Println("cleanup: repanic")
	defer func() {
		r := recover()
		panic(fmt.Sprintf("again after %v", r))
	}()
	panic("first")
}

func duringPanic() {
	defer fmt.Println("cleanup: during a panic")
	defer func() { panic("second") }()
	panic("first")
}

func recoveredLater() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	defer fmt.Println("cleanup: before the recover")
	defer func() { panic("late") }()
	return errors.New("not this one")
}

var mu sync.Mutex

func locked(n int) {
	mu.Lock()
	defer mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("logged and raised again: %v", r))
		}
	}()
	if n > 1 {
		panic(fmt.Sprintf("n=%d", n))
	}
	fmt.Println("locked ok", n)
}

func run(name string, f func()) {
	defer func() { fmt.Println(name, "->", recover()) }()
	f()
}

func main() {
	run("noPriorPanic", noPriorPanic)
	run("repanic", repanic)
	run("duringPanic", duringPanic)
	fmt.Println(recoveredLater())
	run("locked 1", func() { locked(1) })
	run("locked 2", func() { locked(2) })
	run("locked 3", func() { locked(3) }) // the mutex was unlocked
}
