//go:build ignore

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

type MyErr struct{ msg string }

func (e *MyErr) Error() string { return e.msg }

type counter struct{ n int }

func (c *counter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

type Sink struct {
	Name string
	Out  io.Writer
}

func classify(err error) string {
	switch e := err.(type) {
	case nil:
		return "nil"
	case *MyErr:
		return "mine " + e.msg
	case *os.PathError:
		return "path " + e.Op
	default:
		return "other: " + e.Error()
	}
}

func kind(w io.Writer) string {
	if c, ok := w.(*counter); ok {
		return fmt.Sprint("counter ", c.n)
	}
	if _, ok := w.(*os.File); ok {
		return "file"
	}
	return "other"
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	fmt.Println(classify(ctx.Err()))
	fmt.Println(classify(&MyErr{"x"}), classify(nil))
	_, err := os.Open("/nonexistent")
	fmt.Println(classify(err))
	_, ok := ctx.Err().(*MyErr)
	fmt.Println(ok, errors.Is(ctx.Err(), context.DeadlineExceeded))
	c := &counter{}
	fmt.Fprint(c, "hello")
	fmt.Println(kind(io.Discard), kind(c), kind(os.Stdout))
	fmt.Printf("%+v\n", Sink{"null", io.Discard})
	var w io.Writer = io.Discard
	fmt.Println(w, w == io.Discard)
	func() {
		defer func() { fmt.Println("recovered:", recover() != nil) }()
		_ = w.(*counter)
	}()
}
