//go:build ignore

// A panic stops a script with the panic and where it happened, and a
// exit status of 2, as a Go program's; statements before it have run.
func check(v int) int {
	if v > 2 {
		panic(fmt.Sprintf("too big: %d", v))
	}
	return v
}

fmt.Println(check(1))
fmt.Println(check(3))
fmt.Println("not reached")

// Exit: 2
// Output:
// 1
// panic: too big: 3
// 	in check at scripts/panic.go:5:6
// 	at scripts/panic.go:13:1
