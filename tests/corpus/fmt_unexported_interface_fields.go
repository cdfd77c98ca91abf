//go:build ignore

// fmt calls no String or Error method of a value in an unexported field of
// an interface type; in an exported one it does.
package main

import "fmt"

type Color int

func (c Color) String() string { return "green" }

type MyErr struct{ Code int }

func (e MyErr) Error() string { return fmt.Sprint("code ", e.Code) }

type Result struct {
	s   fmt.Stringer
	err error
	Out fmt.Stringer
	Err error
}

func main() {
	r := Result{s: Color(1), err: MyErr{3}, Out: Color(2), Err: MyErr{4}}
	fmt.Printf("%v\n%+v\n", r, r)
	fmt.Println([]Result{r})
	fmt.Printf("%+v\n", struct{ err error }{MyErr{5}})
	fmt.Printf("%v\n", struct{ S fmt.Stringer }{Color(1)})
}
