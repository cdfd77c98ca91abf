//go:build ignore

// A compile error names the file, line and column; nothing of the cell
// runs.
fmt.Println("first cell runs")

// %%
fmt.Println("not printed")
total := undefinedName + 1

// Exit: 1
// Output:
// first cell runs
// scripts/compile_error.go:9:10: undefined: undefinedName
