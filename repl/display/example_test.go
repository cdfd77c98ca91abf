package display_test

import (
	"fmt"

	"github.com/sparknet-go/sparknet/repl/display"
)

func ExampleSparkline() {
	fmt.Println(display.Sparkline([]float64{2.3, 1.7, 1.1, 0.8, 0.6, 0.5, 0.45}))
	// Output: █▆▃▂▂▁▁
}

func ExampleTable() {
	t := display.NewTable("round", "loss", "accuracy")
	t.Add(1, 2.302585, "11.3%")
	t.Add(2, 0.9143, "78.0%")
	fmt.Print(t.Markdown())
	// Output:
	// | round | loss    | accuracy |
	// |------:|--------:|---------:|
	// |     1 | 2.30259 |    11.3% |
	// |     2 |  0.9143 |    78.0% |
}

func ExampleFigure_String() {
	f := display.NewFigure("loss").Line("train", []float64{2.3, 1.2, 0.7, 0.5})
	fmt.Print(f)
	// Output:
	// loss
	// train █▄▂▁  2.3 → 0.5 (min 0.5, max 2.3)
}
