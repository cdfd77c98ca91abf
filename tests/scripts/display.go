//go:build ignore

// Tables, sparklines and figures as text.
t := display.NewTable("round", "loss")
t.Add(1, 2.302585)
t.Add(2, 0.5)
fmt.Print(t)
fmt.Println(display.Sparkline([]float64{1, 2, 3, 4, 5, 6, 7, 8}))
f := display.NewFigure("loss").Line("train", []float64{3, 2, 1})
fmt.Print(f)

// Output:
// ┌───────┬─────────┐
// │ round │ loss    │
// ├───────┼─────────┤
// │     1 │ 2.30259 │
// │     2 │     0.5 │
// └───────┴─────────┘
// ▁▂▃▄▅▆▇█
// loss
// train █▅▁  3 → 1 (min 1, max 3)
