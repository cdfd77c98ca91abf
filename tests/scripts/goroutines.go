//go:build ignore

// go statements run on goroutines; their arguments are evaluated at the
// go statement, and a panic in one that nothing recovers ends the script
// after its report, with status 2, as it ends a Go program.
results := make(chan int, 3)
for i := 0; i < 3; i++ {
	go func(v int) { results <- v * v }(i)
}
sum := 0
for range 3 {
	sum += <-results
}
fmt.Println("sum of squares", sum)

caught := make(chan any)
go func() {
	defer func() { caught <- recover() }()
	panic("recovered in its goroutine")
}()
fmt.Println("recovered:", <-caught)

go func() {
	var m map[string]int
	m["boom"] = 1
}()
time.Sleep(5 * time.Second)
fmt.Println("not reached")

// Exit: 2
// Output:
// sum of squares 5
// recovered: recovered in its goroutine
// panic: assignment to entry in nil map
// 	in func literal at scripts/goroutines.go:23:4
// 	in a goroutine started by a go statement
