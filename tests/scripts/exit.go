//go:build ignore

// os.Exit ends a script with its status.
fmt.Println("leaving")
os.Exit(4)
fmt.Println("not reached")

// Exit: 4
// Output:
// leaving
