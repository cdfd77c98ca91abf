//go:build ignore

// Cells run one after another, each as one input, so a later cell may
// declare a name again, as at the prompt.
x := 1
fmt.Println("cell one", x)

// %% the second cell
// Prose lines at the top of a cell are comments here.
x := "two"
fmt.Println("cell two", x)

// Output:
// cell one 1
// cell two two
