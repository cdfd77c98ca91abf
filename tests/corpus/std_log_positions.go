//go:build ignore

// log writes the file and line of the call with Lshortfile (Llongfile:
// the full path), before a Logger's message prefix with Lmsgprefix; its
// Panic functions panic with the message, its Fatal functions exit with
// status 1 without running deferred calls.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"
)

type Temp float64

func (t Temp) String() string { return fmt.Sprintf("%.1f°C", float64(t)) }

type Point struct{ X, Y int }

func risky() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	log.Panicf("bad value %d", 42)
	return nil
}

func main() {
	var buf bytes.Buffer
	l := log.New(&buf, "[svc] ", 0)
	l.Println("temp", Temp(21.5), Point{1, 2})
	l.Printf("%T %v %+v", Temp(3), Temp(3), Point{3, 4})
	l.SetFlags(log.Lshortfile | log.Lmsgprefix)
	l.Print("with file")
	l.SetPrefix("")
	l.Print("no prefix\n")
	fmt.Print(buf.String())
	var long bytes.Buffer
	l = log.New(&long, "", log.Llongfile)
	l.Println("long")
	path, msg, _ := strings.Cut(long.String(), ": ")
	fmt.Printf("absolute %v, file %v, message %q\n", strings.HasPrefix(path, "/"), strings.Contains(path, "/std_log_positions.go:"), msg)
	log.SetOutput(os.Stdout)
	log.SetFlags(0)
	log.Println("plain", Temp(1))
	fmt.Println(risky())
	log.SetFlags(log.Lshortfile)
	log.Printf("%s", strings.Repeat("ab", 2))
	lg := log.New(os.Stdout, "E: ", log.Lshortfile)
	defer fmt.Println("deferred: not run")
	lg.Fatalf("fatal %d", 7)
	fmt.Println("not reached")
}
