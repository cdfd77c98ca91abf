//go:build ignore

// go statements run on goroutines; their arguments are evaluated at the
// go statement, and a panic in one is reported without ending the script.
results := make(chan int, 3)
for i := 0; i < 3; i++ {
	go func(v int) { results <- v * v }(i)
}
sum := 0
for range 3 {
	sum += <-results
}
fmt.Println("sum of squares", sum)

done := make(chan bool)
go func() {
	defer close(done)
	var m map[string]int
	m["boom"] = 1
}()
<-done
time.Sleep(50 * time.Millisecond)
fmt.Println("still running")

// Output:
// sum of squares 5
// panic in goroutine: assignment to entry in nil map
// 	in func literal at scripts/goroutines.go:16:4
// still running
