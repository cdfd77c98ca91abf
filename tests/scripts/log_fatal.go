//go:build ignore

// log.Fatal ends a script as it ends a Go program: the message on
// standard error, then exit status 1, without running deferred calls.
import "log"

func check(err error) {
	if err != nil {
		log.Fatalf("check: %v", err)
	}
}

func main() {
	defer fmt.Println("deferred: not run")
	log.SetFlags(0)
	log.SetPrefix("job: ")
	log.Println("starting")
	log.Default().Print("the default logger is the same one")
	check(nil)
	check(errors.New("no data"))
	fmt.Println("not reached")
}

main()

// Exit: 1
// Output:
// job: starting
// job: the default logger is the same one
// job: check: no data
