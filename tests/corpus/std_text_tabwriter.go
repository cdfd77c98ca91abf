//go:build ignore

// text/tabwriter aligns columns.
package main

import (
	"fmt"
	"os"
	"text/tabwriter"
)

func main() {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "name\tqty\tprice")
	fmt.Fprintln(w, "apple\t3\t1.20")
	fmt.Fprintln(w, "watermelon\t1\t3.50")
	w.Flush()
}
