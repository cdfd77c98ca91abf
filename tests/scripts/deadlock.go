//go:build ignore

// A script whose goroutines all wait for each other stops, as a Go
// program does, with the runtime's words, instead of hanging; waits that
// a sleeping goroutine or a timer ends are not deadlocks.
results := make(chan int)
go func() { time.Sleep(300 * time.Millisecond); results <- 1 }()
fmt.Println("slow sender:", <-results)
<-time.After(300 * time.Millisecond)
fmt.Println("timer")

var wg sync.WaitGroup
wg.Add(2)
for i := range 2 {
	go func() { defer wg.Done(); results <- i }()
}
wg.Wait()
fmt.Println("not reached")

// Exit: 2
// Output:
// slow sender: 1
// timer
// fatal error: all goroutines are asleep - deadlock!
// 	at scripts/deadlock.go:17:1
// 	(3 goroutines waiting: channel operation or select, channel operation or select, sync.WaitGroup.Wait; none can go on, and nothing else would wake one)
