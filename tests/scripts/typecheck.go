//go:build ignore

// Inputs are checked as Go checks them before they run: what Go rejects
// is an error in the compiler's words at the file's line and column, and
// nothing of the cell runs. Here the second cell takes one result of a
// function that returns two, which Go rejects.
func f() (int, error) { return 7, fmt.Errorf("bad") }

fmt.Println("first cell runs")

// %%
fmt.Println("not printed")
x := f()
fmt.Println(x + 1)

// Exit: 1
// Output:
// first cell runs
// scripts/typecheck.go:13:6: assignment mismatch: 1 variable but f returns 2 values
