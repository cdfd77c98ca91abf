//go:build ignore

// Telling errors apart with a type switch.
package main

import (
	"errors"
	"fmt"
	"strconv"
)

type TempErr struct{ retries int }

func (t TempErr) Error() string { return fmt.Sprintf("temporary, retry %d", t.retries) }

func classify(err error) string {
	var ne *strconv.NumError
	switch e := err.(type) {
	case nil:
		return "ok"
	case TempErr:
		return "temp " + strconv.Itoa(e.retries)
	default:
		if errors.As(err, &ne) {
			return "number error in " + ne.Func
		}
		return "other: " + e.Error()
	}
}

func main() {
	_, perr := strconv.ParseFloat("x", 64)
	for _, err := range []error{nil, TempErr{2}, perr, errors.New("boom")} {
		fmt.Println(classify(err))
	}
}
