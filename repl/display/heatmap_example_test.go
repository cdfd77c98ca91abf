package display_test

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/repl/display"
)

func ExampleHeatMap() {
	h := display.NewHeatMap("speedup", []string{"2", "4"}, []string{"1", "10"})
	h.XLabel, h.YLabel = "τ", "K"
	h.Log, h.Diverging = true, true // red below 1, blue above
	h.Set(0, 0, 0.5)
	h.Set(0, 1, 1.6)
	h.Set(1, 0, math.NaN()) // an empty cell
	h.Set(1, 1, 2.9)
	// h.Save("speedup.png") draws it; Markdown and String tabulate it.
	fmt.Print(h.Markdown())
	// Output:
	// **speedup**
	//
	// | K \ τ | 1   | 10  |
	// |:------|:----|----:|
	// | 2     | 0.5 | 1.6 |
	// | 4     | –   | 2.9 |
}
