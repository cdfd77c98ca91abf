//go:build ignore

// Sentinel errors compared with == and with errors.Is, as io.EOF is.
package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

func main() {
	r := bufio.NewReader(strings.NewReader("one\ntwo\nthree"))
	for {
		line, err := r.ReadString('\n')
		fmt.Printf("%q\n", line)
		if err == io.EOF {
			fmt.Println("done")
			break
		}
		if err != nil {
			fmt.Println("error", err)
			break
		}
	}
}
