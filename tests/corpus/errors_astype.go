//go:build ignore

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

type NotFound struct{ Name string }

func (e *NotFound) Error() string { return e.Name + " not found" }

type Code int

func (c Code) Error() string { return fmt.Sprintf("code %d", int(c)) }

type temporary interface {
	error
	Temporary() bool
}

type netErr struct{}

func (netErr) Error() string   { return "net" }
func (netErr) Temporary() bool { return true }

func find(name string) error {
	if name == "" {
		return Code(400)
	}
	return fmt.Errorf("lookup %q: %w", name, &NotFound{name})
}

func main() {
	err := find("cfg")
	nf, ok := errors.AsType[*NotFound](err)
	fmt.Println(ok, nf, nf.Name)
	if c, ok := errors.AsType[Code](find("")); ok {
		fmt.Println("code", int(c), c)
	}
	_, ok = errors.AsType[Code](err)
	fmt.Println(ok)
	j := errors.Join(errors.New("a"), netErr{}, Code(7))
	t, ok := errors.AsType[temporary](j)
	fmt.Println(ok, t.Temporary(), t)
	c, ok := errors.AsType[Code](j)
	fmt.Println(ok, c)
	_, err = os.Open("/nonexistent")
	pe, ok := errors.AsType[*fs.PathError](err)
	fmt.Println(ok, pe.Op)
	none, ok := errors.AsType[*NotFound](nil)
	fmt.Println(ok, none == nil)
}
