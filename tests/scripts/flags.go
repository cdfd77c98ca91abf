//go:build ignore

// A script's flags: flag.Parse parses the arguments after the script's
// name, as the program's own (os.Args[0] is the script).
import "flag"

epochs := flag.Int("epochs", 1, "passes over the data")
var rate float64
flag.Float64Var(&rate, "lr", 0.01, "learning rate")
name := flag.String("name", "run", "the run's name")
flag.Parse()
fmt.Println(os.Args[0], *epochs, rate, *name, flag.NArg(), flag.Args())
flag.Visit(func(f *flag.Flag) { fmt.Println("set:", f.Name, f.Value) })
fmt.Println(flag.Lookup("lr").DefValue, flag.CommandLine.Name(), flag.Parsed())

// Args: -epochs 3 -lr=0.5 data.txt more
// Output:
// scripts/flags.go 3 0.5 run 2 [data.txt more]
// set: epochs 3
// set: lr 0.5
// 0.01 scripts/flags.go true
