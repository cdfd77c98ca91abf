//go:build ignore

// A panic with a value that has a String method reports it by that
// method, as Go's does; recover gives the value itself.
type Money struct{ Cents int64 }

func (m Money) String() string { return fmt.Sprintf("$%d.%02d", m.Cents/100, m.Cents%100) }

func charge(m Money) {
	if m.Cents > 10000 {
		panic(m)
	}
}

func() {
	defer func() {
		r := recover()
		m, ok := r.(Money)
		fmt.Println("recovered:", r, m.Cents, ok)
	}()
	charge(Money{12345})
}()
charge(Money{20000})

// Exit: 2
// Output:
// recovered: $123.45 12345 true
// panic: $200.00
// 	in charge at scripts/panic_stringer.go:9:6
// 	at scripts/panic_stringer.go:23:1
