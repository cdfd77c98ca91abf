//go:build ignore

package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"
)

type service struct {
	name string
	log  *log.Logger
}

func newService(name string, l *log.Logger) *service {
	if l == nil {
		l = log.Default()
	}
	return &service{name, l}
}

func main() {
	var buf bytes.Buffer
	l := log.New(&buf, "[svc] ", 0)
	fmt.Printf("%T %q %d\n", l, l.Prefix(), l.Flags())
	s := newService("a", l)
	s.log.Printf("starting %s", s.name)
	l.SetPrefix("[svc2] ")
	l.Println("second", 2)
	l.SetFlags(log.Lmsgprefix)
	l.Print("third")
	fmt.Print(buf.String())
	fmt.Println(strings.Count(buf.String(), "\n"), l.Writer() == &buf)
	d := newService("b", nil)
	fmt.Printf("%T %v\n", d.log, d.log == log.Default())
	out := log.New(os.Stdout, "", 0)
	func() {
		defer func() { fmt.Println("recovered:", recover()) }()
		out.Panicf("bad %d", 7)
	}()
	defer fmt.Println("deferred: not run by Fatal")
	out.Fatalf("fatal %s", "end")
}
