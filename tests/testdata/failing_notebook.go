//go:build ignore

// # A notebook that fails
//
// Its second cell panics: the report shows the error and stops there.

// %% First
fmt.Println("first cell output")

// %% Second
var m map[string]int
m["x"] = 1

// %% Third
fmt.Println("never printed")
