//go:build ignore

// errors.As finds an error of a given type in a chain.
package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

func lookup(k string) error {
	if k != "ok" {
		return fmt.Errorf("lookup: %w", &NotFound{k})
	}
	return nil
}

func main() {
	err := lookup("missing")
	var nf *NotFound
	if errors.As(err, &nf) {
		fmt.Println("key was", nf.Key)
	}
	fmt.Println(err)
	fmt.Println(errors.As(lookup("ok"), &nf))
}
