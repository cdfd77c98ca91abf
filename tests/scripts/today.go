//go:build ignore

// The Go of go.mod's version: per-iteration loop variables, range over
// integers and functions, min and max, the generic slices, maps and iter
// on the script's own types, named types that keep their names and
// methods, errors.As with the script's error type, Go's run-time errors.
import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type City struct {
	Name string
	Temp Celsius
}

type NotFound struct{ Name string }

func (e *NotFound) Error() string { return e.Name + " not found" }

func deferred() {
	for i := range 3 {
		defer fmt.Print(i, " ")
	}
}
deferred()
fmt.Println()

var fs []func() int
for i := 0; i < 3; i++ {
	fs = append(fs, func() int { return i * i })
}
for _, f := range fs {
	fmt.Print(f(), " ")
}
fmt.Println()

func countdown(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := n; i > 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}
for v := range countdown(5) {
	if v == 2 {
		break
	}
	fmt.Print(v, " ")
}
fmt.Println(min(3, 1, 2), max(2.5, 1))

cities := []City{{"Oslo", 4}, {"Rome", 21.5}, {"Cairo", 30}}
slices.SortFunc(cities, func(a, b City) int { return cmp.Compare(b.Temp, a.Temp) })
fmt.Println(cities)
byName := map[string]Celsius{}
for _, c := range cities {
	byName[c.Name] = c.Temp
}
fmt.Println(slices.Sorted(maps.Keys(byName)))
fmt.Printf("%T %v %T\n", byName["Rome"], byName["Rome"], cities[0])

func find(name string) error {
	if _, ok := byName[name]; !ok {
		return fmt.Errorf("lookup: %w", &NotFound{name})
	}
	return nil
}
var nf *NotFound
err := find("Lima")
fmt.Println(err, errors.As(err, &nf), nf.Name)

v, ok := byName["Lima"]
fmt.Println(v, ok)
var s []int
_ = s[3]

// Exit: 2
// Output:
// 2 1 0
// 0 1 4
// 5 4 3 1 2.5
// [{Cairo 30.0°C} {Rome 21.5°C} {Oslo 4.0°C}]
// [Cairo Oslo Rome]
// main.Celsius 21.5°C main.City
// lookup: Lima not found true Lima
// 0.0°C false
// panic: runtime error: index out of range [3] with length 0
// 	at scripts/today.go:84:1
