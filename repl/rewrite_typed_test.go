package repl

import (
	"context"
	"strings"
	"testing"
)

// TestToday runs the Go of go.mod's version that the interpreter lacks
// or gets wrong, and that the typed rewrites make it run.
func TestToday(t *testing.T) {
	tests := []struct {
		name  string
		steps []evalStep
	}{
		{"per-iteration loop variables", []evalStep{
			{in: `import "reflect"`},
			{in: "func g() { for i := 0; i < 3; i++ { defer fmt.Print(i) } }; g()", out: "210"},
			{in: "var fs []func() int\nfor i := 0; i < 3; i++ { fs = append(fs, func() int { return i }) }\nfor _, f := range fs { fmt.Print(f()) }", out: "012"},
			{in: "var ps []*int\nfor _, v := range []int{4, 5} { ps = append(ps, &v) }\nfmt.Print(*ps[0], *ps[1])", out: "4 5"},
			// A body that changes the variable carries the change to the next iteration.
			{in: "var gs []func() int\nfor i := 0; i < 6; i++ { if i%2 == 0 { i++ }; gs = append(gs, func() int { return i }) }\nfor _, f := range gs { fmt.Print(f()) }", out: "135"},
			{in: "var hs []func() int\nfor i := 0; i < 5; i++ { if i == 1 { i += 2; continue }; hs = append(hs, func() int { return i }) }\nfor _, f := range hs { fmt.Print(f()) }", out: "04"},
			{in: "var vs []reflect.Value\nfor i := range 3 { vs = append(vs, reflect.ValueOf(func() int { return i })) }\nfor _, v := range vs { fmt.Print(v.Call(nil)[0]) }", out: "012"},
			{in: "func h() { for i := range 3 { defer func() { fmt.Print(i) }() } }; h()", out: "210"},
			{in: "ch := make(chan int, 3)\nfor i := range 3 { go func() { ch <- i * i }() }\n<-ch + <-ch + <-ch", out: "5 (int)\n"},
		}},
		{"deferred calls take their arguments at the defer", []evalStep{
			{in: "func d() { x := 1; defer fmt.Println(\"x is\", x); x = 2 }; d()", out: "x is 1\n"},
			{in: "type C struct{ n int }\nfunc (c *C) Show() { fmt.Println(\"n is\", c.n) }\nfunc e() { c := C{1}; defer c.Show(); c.n = 5 }; e()", out: "n is 5\n"},
			{in: "func f2() { p := fmt.Println; defer p(\"first\"); p = func(a ...any) (int, error) { return 0, nil } }; f2()", out: "first\n"},
			// In a top-level statement's block too; the calls run when the statement ends.
			{in: "for i := range 3 { defer fmt.Print(i) }\nfmt.Print(\" end\")", out: "210 end"},
			{in: "for i := range 3 { defer func() { fmt.Print(i) }() }", out: "210"},
			{in: "if true { c := C{1}; defer c.Show(); p := fmt.Println; defer p(\"first\"); p = nil; c.n = 7 }", out: "first\nn is 7\n"},
		}},
		{"range over integers", []evalStep{
			{in: "type Small uint8\nvar n Small = 3\nvar last Small\nfor i := range n { last = i }\nfmt.Println(int(last))", out: "2\n"},
			{in: "var j int\nfor j = range 4 {}\nj", out: "3 (int)\n"},
			{in: "const k = 2\nfor range k { fmt.Print(\"x\") }", out: "xx"},
		}},
		{"range over functions", []evalStep{
			{in: "func count(n int) func(func(int) bool) { return func(yield func(int) bool) { for i := 0; i < n; i++ { if !yield(i) { return } } } }"},
			{in: "for v := range count(10) { if v == 1 { continue }; if v == 4 { break }; fmt.Print(v) }", out: "023"},
			{in: "func find(n int) (int, bool) { for v := range count(10) { if v*v > n { return v, true } }; return 0, false }\nfind(20)", out: "5 (int)\ntrue (bool)\n"},
			{in: "outer:\nfor i := range 3 { for v := range count(3) { if v == 1 { continue outer }; if i == 2 { break outer }; fmt.Print(i, v, \" \") } }", out: "0 0 1 0 "},
			{in: "func pairs(yield func(string, int) bool) { _ = yield(\"a\", 1) && yield(\"b\", 2) }\nfor k, v := range pairs { fmt.Print(k, v) }", out: "a1b2"},
			{in: "func bad() { for v := range count(2) { defer fmt.Println(v) } }", err: "defer in the body of a range over a function is not supported by the shell"},
		}},
		{"min, max and clear", []evalStep{
			{in: "x := []int{3, 1, 2}\nmin(x[0], x[1], x[2])", out: "1 (int)\n"},
			{in: "max(2.5, float64(x[0]))", out: "3 (float64)\n"},
			{in: `min("b", "a")`, out: "\"a\" (string)\n"},
			{in: "const c = max(1, 2.5)\nc", out: "2.5 (float64)\n"},
			{in: "m := map[string]int{\"a\": 1}\nclear(m)\nclear(x)\nfmt.Println(len(m), x)", out: "0 [0 0 0]\n"},
		}},
		{"generics", []evalStep{
			{in: "func Map[T, U any](s []T, f func(T) U) []U { var r []U; for _, v := range s { r = append(r, f(v)) }; return r }"},
			{in: "Map([]int{1, 2}, func(i int) string { return fmt.Sprint(i * 10) })", out: "[10 20] ([]string)\n"},
			{in: "type Number interface{ ~int | ~float64 }\nfunc Sum[T Number](s []T) T { var t T; for _, v := range s { t += v }; return t }\ntype MyInt int"},
			{in: "fmt.Println(Sum([]float64{1.5, 2}), Sum([]MyInt{1, 2}))", out: "3.5 3\n"},
			{in: "type Pair[K comparable, V any] struct{ Key K; Val V }\nfunc MakePair[K comparable, V any](k K, v V) Pair[K, V] { return Pair[K, V]{k, v} }\nMakePair(\"a\", 1).Val", out: "1 (int)\n"},
		}},
		{"instantiated generic types in composite literals", []evalStep{
			// The interpreter mixed up the instantiations that literals
			// spell out (instanceAliases): a second literal broke the
			// first, and one inside a slice literal did not compile.
			{in: "type pair[K comparable, V any] struct { k K; v V }\nq := pair[string, int]{\"z\", 3}"},
			{in: "type box struct { p pair[string, int] }\nb := box{pair[string, int]{\"y\", 2}}\nfmt.Println(b.p, q)", out: "{y 2} {z 3}\n"},
			{in: "fmt.Println([]pair[string, int]{pair[string, int]{\"b\", 2}, q}, map[string]pair[string, int]{\"a\": pair[string, int]{k: \"x\"}})", out: "[{b 2} {z 3}] map[a:{x 0}]\n"},
			{in: "[]*pair[string, int]{&pair[string, int]{\"p\", 5}}[0].k", out: "\"p\" (string)\n"},
			{in: "fmt.Printf(\"%T %v\\n\", q, q == pair[string, int]{\"z\", 3})", out: "main.pair[string,int] true\n"},
			{in: "func mk() pair[string, int] { return pair[string, int]{\"m\", 7} }\nfunc wrap[T any](v T) pair[string, T] { return pair[string, T]{\"w\", v} }\nfmt.Println(mk(), wrap(2.5))", out: "{m 7} {w 2.5}\n"},
			{in: "d := pair[time.Duration, []string]{time.Second, []string{\"a\"}}\nfmt.Printf(\"%v %T\\n\", d, d)", out: "{1000000000 [a]} main.pair[time.Duration,[]string]\n"},
			{in: "func local() any { type loc struct{ n int }; return pair[loc, int]{loc{3}, 4} }\nfmt.Println(local(), q)", out: "{{3} 4} {z 3}\n"},
			// As type arguments of generic functions (written or
			// inferred): the interpreter's compiler crashed on
			// slices.SortFunc[[]pair[string, int], pair[string, int]].
			{in: "ps := []pair[string, int]{{\"b\", 2}, {\"a\", 1}, {\"c\", 3}}\nslices.SortFunc(ps, func(a, b pair[string, int]) int { return cmp.Compare(a.k, b.k) })\nfmt.Println(ps)", out: "[{a 1} {b 2} {c 3}]\n"},
			{in: "func apply[T any](s []T, f func(T) int) int { return f(s[0]) }\nfmt.Println(apply(ps, func(p pair[string, int]) int { return p.v }), apply[pair[string, int]](ps, func(p pair[string, int]) int { return 10 * p.v }))", out: "1 10\n"},
			{in: "slices.IndexFunc(ps, func(p pair[string, int]) bool { return p.k == \"c\" })", out: "2 (int)\n"},
		}},
		{"slices, maps, cmp and iter", []evalStep{
			{in: `import "reflect"`},
			{in: `import ("cmp"; "iter"; "maps"; "slices"; "strings")`},
			{in: "x := []int{3, 1, 2}\nslices.Sort(x)\nfmt.Println(x, slices.Max(x), slices.Contains(x, 2), slices.Index(x, 3))", out: "[1 2 3] 3 true 2\n"},
			{in: `m := map[string]int{"b": 2, "a": 1, "c": 3}`},
			{in: "slices.Sorted(maps.Keys(m))", out: "[a b c] ([]string)\n"},
			{in: "slices.Collect(maps.Values(maps.Clone(map[int]int{1: 7})))", out: "[7] ([]int)\n"},
			{in: "fmt.Println(cmp.Compare(2, 1), cmp.Or(\"\", \"x\"))", out: "1 x\n"},
			{in: `slices.Collect(strings.Lines("a\nb\n"))`, out: "[a\n b\n] ([]string)\n"},
			{in: "import (\"sync\"; \"math/rand/v2\")\ncalls := 0\nget := sync.OnceValue(func() int { calls++; return 42 })\nfmt.Println(get(), get(), calls, rand.N(3) < 3)", out: "42 42 1 true\n"},
			{in: "func evens(n int) iter.Seq[int] { return func(yield func(int) bool) { for i := 0; i < n; i += 2 { if !yield(i) { return } } } }\nnext, stop := iter.Pull(evens(5))\na, _ := next()\nb, _ := next()\nstop()\nfmt.Println(a, b)", out: "0 2\n"},
			{in: "type Person struct{ Name string; Age int }\npeople := []Person{{\"Bo\", 30}, {\"Al\", 25}, {\"Cy\", 25}}\nslices.SortFunc(people, func(a, b Person) int { return cmp.Compare(a.Age, b.Age) })\nfmt.Println(people, slices.IndexFunc(people, func(p Person) bool { return p.Name == \"Bo\" }))", out: "[{Al 25} {Cy 25} {Bo 30}] 2\n"},
		}},
		{"conversions to interface types", []evalStep{
			{in: `import ("io"; "strings"; "time")`},
			{in: "type NotFound struct{ Name string }\nfunc (e NotFound) Error() string { return e.Name + \" not found\" }"},
			{in: "type Celsius float64\nfunc (c Celsius) String() string { return fmt.Sprintf(\"%.1f°C\", float64(c)) }"},
			{in: "fmt.Println(fmt.Stringer(time.Second).String(), fmt.Stringer(Celsius(20)).String(), error(NotFound{\"x\"}).Error())", out: "1s 20.0°C x not found\n"},
			{in: "var b strings.Builder\nfmt.Fprint(io.Writer(&b), \"through a Writer\")\nb.String()", out: "\"through a Writer\" (string)\n"},
			{in: "var e error = NotFound{\"key\"}\nfmt.Println(e.Error(), e)", out: "key not found key not found\n"},
			{in: "var e2 error\ne2 = NotFound{\"k2\"}\ne2.Error()", out: "\"k2 not found\" (string)\n"},
			{in: "func find(name string) error { if name == \"\" { return NotFound{\"empty\"} }; return nil }\nfind(\"\").Error()", out: "\"empty not found\" (string)\n"},
			{in: "errs := []error{NotFound{\"a\"}}\nerrs = append(errs, NotFound{\"b\"})\nm := map[string]fmt.Stringer{\"t\": Celsius(5)}\nfmt.Println(errs[0].Error(), errs[1].Error(), m[\"t\"].String())", out: "a not found b not found 5.0°C\n"},
			{in: "ch := make(chan error, 1)\nch <- NotFound{\"sent\"}\n(<-ch).Error()", out: "\"sent not found\" (string)\n"},
		}},
		{"comma-ok at the top level", []evalStep{
			{in: `m := map[string]int{"a": 1}`},
			{in: `v, ok := m["a"]`},
			{in: `w, ok2 := m["z"]; fmt.Println(v, ok, w, ok2)`, out: "1 true 0 false\n"},
			{in: `var x any = "s"`},
			{in: `s, isStr := x.(string); n, isInt := x.(int); fmt.Println(s, isStr, n, isInt)`, out: "s true 0 false\n"},
			{in: "ch := make(chan int, 1); ch <- 4; close(ch)"},
			{in: "r, open := <-ch; r2, open2 := <-ch; fmt.Println(r, open, r2, open2)", out: "4 true 0 false\n"},
			{in: `var vv, okk = m["a"]; fmt.Println(vv, okk)`, out: "1 true\n"},
			{in: "for _, k := range []string{\"a\", \"z\"} { v, ok := m[k]; fmt.Print(v, ok, \" \") }", out: "1 true 0 false "},
			{in: "func look(m map[string]int) { for _, k := range []string{\"a\", \"z\"} { if v, ok := m[k]; !ok { fmt.Print(\"none \", v) } } }; look(m)", out: "none 0"},
			{in: `vv, _ = m["zz"]; vv`, out: "0 (int)\n"},
			{in: `w2, _ := m["zz"]; w2`, out: "0 (int)\n"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if raceEnabled && strings.Contains(tc.name, "loop variables") {
				t.Skip("the interpreter races with its own goroutines")
			}
			s, out, _ := newTestSession(t)
			for _, st := range tc.steps {
				out.Reset()
				err := s.Eval(context.Background(), st.in)
				switch {
				case st.err == "" && err != nil:
					t.Fatalf("%q: %v", st.in, err)
				case st.err != "" && err == nil:
					t.Fatalf("%q: no error, want %q", st.in, st.err)
				case st.err != "" && !strings.Contains(err.Error(), st.err):
					t.Fatalf("%q: error %q, want %q", st.in, err, st.err)
				}
				if got := out.String(); st.err == "" && st.out != "" && got != st.out {
					t.Errorf("%q printed %q, want %q", st.in, got, st.out)
				}
			}
		})
	}
}

// TestNames checks that the session's types keep their names and
// methods where compiled code sees their values: fmt's verbs, the echo,
// errors.Is and errors.As, type switches.
func TestNames(t *testing.T) {
	steps := []evalStep{
		{in: "type F float64\ntype T struct{ S string }\nfunc (t T) String() string { return \"T(\" + t.S + \")\" }\ntype E struct{ Code int }\nfunc (e *E) Error() string { return fmt.Sprint(\"code \", e.Code) }"},
		{in: `fmt.Printf("%T %v %.1f|%T %T %v|%#v\n", F(3), F(3), F(3), T{}, &T{}, T{"a"}, T{"b"})`, out: "main.F 3 3.0|main.T *main.T T(a)|main.T{S:\"b\"}\n"},
		{in: "F(2)", out: "2 (main.F)\n"},
		{in: `T{"c"}`, out: "T(c) (main.T)\n"},
		{in: `&E{7}`, out: "code 7 (*main.E)\n"},
		{in: `[]F{1, 2}`, out: "[1 2] ([]main.F)\n"},
		{in: "var x any = F(4)\nvar i any = 5\nvar t any = T{\"d\"}\nfmt.Printf(\"%v %T %T\\n\", x, i, t)", out: "4 int main.T\n"},
		{in: "t", out: "T(d) (main.T)\n"},
		{in: "type Shape interface{ Area() float64 }\ntype Sq float64\nfunc (s Sq) Area() float64 { return float64(s * s) }\nvar sh Shape = Sq(2)\nfmt.Printf(\"%T %v\\n\", sh, sh.Area())", out: "main.Sq 4\n"},
		{in: "func fail() error { return &E{42} }\nerr := fail()\nwrapped := fmt.Errorf(\"wrap: %w\", err)"},
		{in: "fmt.Printf(\"%T %v\\n\", err, wrapped)", out: "*main.E wrap: code 42\n"},
		{in: "var target *E\nfmt.Println(errors.As(wrapped, &target), target.Code, errors.Is(wrapped, err))", out: "true 42 true\n"},
		{in: "switch e := errors.Unwrap(wrapped).(type) { case *E: fmt.Println(\"E\", e.Code); case error: fmt.Println(\"other\") }", out: "E 42\n"},
		{in: "type Level int\nfunc (l Level) String() string { return [...]string{\"low\", \"high\"}[l] }\nfmt.Printf(\"%v %d %s %T\\n\", Level(1), Level(1), Level(0), Level(0))", out: "high 1 low main.Level\n"},
		{in: "type Reading struct{ L Level; n int }\nfmt.Println([]Level{0, 1}, map[string]Level{\"a\": 1}, Reading{1, 2})\nfmt.Printf(\"%+v %T\\n\", Reading{0, 3}, []Level{})", out: "[low high] map[a:high] {high 2}\n{L:low n:3} []main.Level\n"},
		{in: "[]Level{1, 0}", out: "[high low] ([]main.Level)\n"},
		// fmt calls no method of what it reaches through an unexported
		// field, and prints the names of its fields (the interpreter's
		// structs give them with an X in front).
		{in: "type in struct{ k string }\nfunc (i in) String() string { return \"IN\" }\ntype deep struct{ n int; l []in }\ntype box struct{ p in; d deep; Q in; m map[string]in; lv Level; t time.Duration }"},
		{in: "fmt.Printf(\"%+v\\n\", box{in{\"y\"}, deep{1, []in{{\"a\"}}}, in{\"z\"}, map[string]in{\"k\": {\"v\"}}, 1, time.Second})", out: "{p:{k:y} d:{n:1 l:[{k:a}]} Q:IN m:map[k:{k:v}] lv:1 t:1000000000}\n"},
		{in: "fmt.Println([]box{{p: in{\"q\"}, lv: 0}})", out: "[{{q} {0 []} IN map[] 0 0}]\n"},
		{in: "func local() { type count uint8; var c count = 2; fmt.Printf(\"%T %v\\n\", c, c) }; local()", out: "main.count 2\n"},
		{in: "type Pt struct{ X int }\nfunc (p Pt) Add(d int) int { return p.X + d }\nadd := Pt.Add\nfmt.Println(add(Pt{1}, 2))", out: "3\n"},
		{in: "r := 'x'; var f float64 = 1\nfmt.Printf(\"%T %v %v\\n\", r, f/0, -f/0)", out: "int32 +Inf -Inf\n"},
		// Recursive types: the rewrite must end (it once overflowed the
		// stack and killed the session) and convert every depth.
		{in: "type Tree struct{ Kids []Tree; N int }\nfmt.Println(Tree{N: 1, Kids: []Tree{{N: 2}}})", out: "{[{[] 2}] 1}\n"},
		{in: "type Node struct{ Kids []Node; L Level }\nfmt.Printf(\"%v %+v\\n\", Node{L: 1, Kids: []Node{{L: 0, Kids: []Node{{L: 1}}}}}, Node{L: 0})", out: "{[{[{[] high}] low}] high} {Kids:[] L:low}\n"},
		{in: "Node{L: 1, Kids: []Node{{L: 0}}}", out: "{Kids:[{Kids:[] L:low}] L:high} (main.Node)\n"},
		{in: "type Pair struct{ L Level; Next *Pair; Rest []Pair }\nfmt.Println(Pair{L: 1, Rest: []Pair{{L: 0}}})", out: "{high <nil> [{low <nil> []}]}\n"},
		// The session's types held by interfaces inside slices, maps and
		// structs (the interpreter's own values there printed as
		// [{0xc000… {0xc000… 0xc000… 409}}]).
		{in: "type Circle struct{ R float64 }\nfunc (c Circle) Area() float64 { return 3 * c.R * c.R }\nshapes := []Shape{Sq(2), Circle{1}}\nfmt.Println(shapes, map[string]Shape{\"c\": Circle{2}})", out: "[2 {1}] map[c:{2}]\n"},
		{in: "shapes", out: "[2 {1}] ([]main.Shape)\n"},
		{in: "fmt.Println([]any{Circle{1}, 3, \"x\", nil, T{\"e\"}, &E{5}, Level(1)})", out: "[{1} 3 x <nil> T(e) code 5 high]\n"},
		{in: "type Box struct{ S Shape; N int }\nfmt.Printf(\"%v %+v %T\\n\", Box{Circle{1}, 2}, Box{S: Sq(3)}, []any{Box{}})", out: "{{1} 2} {S:3 N:0} []interface {}\n"},
		{in: "errs := []error{&E{1}, fmt.Errorf(\"plain\"), nil}\nfmt.Println(errs)", out: "[code 1 plain <nil>]\n"},
		{in: "fmt.Printf(\"%#v %#v\\n\", []any{1, nil}, map[string]any{\"k\": Level(0)})", out: "[]interface {}{1, interface {}(nil)} map[string]interface {}{\"k\":0}\n"},
		// A method promoted from an embedded interface: called (the
		// interpreter panicked with "invalid interface value") and printed
		// (its assertion was refused as impossible).
		{in: "type Named interface{ Name() string }\ntype N string\nfunc (n N) Name() string { return string(n) }\ntype Item struct{ Named; Qty int }\nit := Item{N(\"pen\"), 2}\nget := it.Name\nfmt.Println(it.Name(), get(), (&it).Name())", out: "pen pen pen\n"},
		{in: "fmt.Println([]Named{it, N(\"cap\")}, it)", out: "[{pen 2} cap] {pen 2}\n"},
	}
	runSteps(t, steps)
}

// TestRuntimeErrors checks that run-time panics carry Go's runtime
// errors, to recover and in reports.
func TestRuntimeErrors(t *testing.T) {
	tests := []struct{ in, err, out string }{
		{in: "var s []int; s[3]", err: "panic: runtime error: index out of range [3] with length 0\n\tat in[2]:1:14"},
		{in: "a := []int{1, 2}; i := 3; a[1:i]", err: "panic: runtime error: slice bounds out of range [:3] with capacity 2"},
		{in: `str := "ab"; j := 2; str[j]`, err: "panic: runtime error: index out of range [2] with length 2"},
		{in: "func at(s []int) int { for i := 0; ; i++ { _ = s[i] } }; at(nil)", err: "panic: runtime error: index out of range\n\tin at at in[2]:1:6"},
		{in: "var p *struct{ X int }; p.X = 1", err: "panic: runtime error: invalid memory address or nil pointer dereference"},
		{in: "func try(f func()) (r any) { defer func() { r = recover() }(); f(); return }\n" +
			"_, isRuntime := try(func() { var s []int; _ = s[1] }).(runtime.Error)\n" +
			"fmt.Println(try(func() { var s []int; _ = s[1] }), isRuntime)\n" +
			"fmt.Println(try(func() { var x any = \"s\"; _ = x.(int) }))\n" +
			"fmt.Printf(\"%T\\n\", try(func() { panic([]string{\"a\"}) }))",
			out: "runtime error: index out of range [1] with length 0 true\ninterface conversion: interface {} is string, not int\n[]string\n"},
	}
	for _, tc := range tests {
		s, out, _ := newTestSession(t)
		if err := s.Eval(context.Background(), `import "runtime"`); err != nil {
			t.Fatal(err)
		}
		err := s.Eval(context.Background(), tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
		}
		if out.String() != tc.out {
			t.Errorf("%q printed %q, want %q", tc.in, out.String(), tc.out)
		}
	}
}

// TestValueReceiverInterfaces checks values of the session's struct
// types whose methods have value receivers in compiled interfaces
// (error, fmt.Stringer), which the interpreter wraps: asserted back to
// their types, in type switches, through errors.Is and errors.As,
// compared, and asserted from one interface to another. Each step
// failed before the rewrites (assertions false, the wrapper holding the
// struct's last field, comparisons panicking).
func TestValueReceiverInterfaces(t *testing.T) {
	steps := []evalStep{
		{in: "type VE struct{ Code int; Msg string }\nfunc (e VE) Error() string { return fmt.Sprint(\"code \", e.Code) }\nfunc (e VE) String() string { return \"VE\" + e.Msg }\ntype PE struct{ n int }\nfunc (p *PE) Error() string { return \"pe\" }\nvar ErrP = &PE{1}"},
		{in: "func fail(i int) error { if i == 0 { return VE{7, \"x\"} }; if i == 1 { return ErrP }; return nil }\nerr := fail(0)"},
		{in: "v, ok := err.(VE)\nfmt.Println(v.Code, v.Msg, ok)", out: "7 x true\n"},
		{in: "err.(VE).Msg", out: "\"x\" (string)\n"},
		{in: "switch e := err.(type) { case *PE: fmt.Println(\"PE\"); case VE: fmt.Println(\"VE\", e.Code); default: fmt.Println(\"other\") }", out: "VE 7\n"},
		{in: "var target VE\nwrapped := fmt.Errorf(\"at 3: %w\", err)\nfmt.Println(errors.As(wrapped, &target), target.Code, errors.Is(wrapped, VE{7, \"x\"}), errors.Is(wrapped, VE{7, \"y\"}))", out: "true 7 true false\n"},
		{in: "_, ok = errors.Unwrap(wrapped).(VE)\nfmt.Println(ok, errors.Unwrap(wrapped) == err)", out: "true true\n"},
		{in: "fmt.Println(err == VE{7, \"x\"}, err != VE{7, \"x\"}, err == fail(0), err == fail(1), fail(1) == ErrP, fail(2) == nil)", out: "true false true false true true\n"},
		{in: "switch fail(1) { case VE{7, \"x\"}: fmt.Println(\"ve\"); case ErrP: fmt.Println(\"errp\"); case nil: fmt.Println(\"nil\") }", out: "errp\n"},
		{in: "var s fmt.Stringer = VE{2, \"b\"}\ne2, ok := s.(error)\nfmt.Println(e2, ok, s.(error).Error())", out: "code 2 true code 2\n"},
		{in: "var a any = VE{3, \"c\"}\nst, ok := a.(fmt.Stringer)\nfmt.Println(st, ok, a.(fmt.Stringer).String())", out: "code 3 true VEc\n"}, // fmt prefers Error to String
		{in: "switch x := a.(type) { case error: fmt.Println(\"error\", x.Error()) }", out: "error code 3\n"},
		{in: "errs := []error{VE{4, \"d\"}, ErrP}\n_, ok = errs[0].(VE)\nfmt.Println(ok, errs[1] == ErrP, errs)", out: "true true [code 4 pe]\n"},
		// An any that holds such an error value, and a panic with one.
		{in: "var anyErr any = err\nae, ok := anyErr.(VE)\nfmt.Printf(\"%T %v %v %v\\n\", anyErr, ae.Code, ok, anyErr.(VE).Msg)\nswitch x := anyErr.(type) { case VE: fmt.Println(\"VE\", x.Code) }", out: "main.VE 7 true x\nVE 7\n"},
		{in: "func try() (r any) { defer func() { r = recover() }(); panic(VE{8, \"p\"}) }\nrv := try()\n_, isVE := rv.(VE)\nfmt.Printf(\"%T %v %v\\n\", rv, rv, isVE)", out: "main.VE code 8 true\n"},
		{in: "panic(VE{9, \"q\"})", err: "panic: code 9"},
		// The shell's slices compare what the wrappers hold.
		{in: "more := []error{VE{4, \"d\"}, VE{4, \"d\"}, ErrP, ErrP}\nfmt.Println(slices.Index(errs, error(ErrP)), slices.Contains(errs, error(VE{4, \"d\"})), slices.Index(errs, error(VE{5, \"d\"})), slices.Equal(errs, slices.Compact(more)))", out: "1 true -1 true\n"},
	}
	runSteps(t, steps)
}

// TestMethodsDeclaredAgain checks that a method declared again at the
// prompt (a notebook's cell run again) replaces the old one for every
// value of its type, made before or after, in variables, interfaces and
// functions declared before; and what the shell refuses.
func TestMethodsDeclaredAgain(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "type T struct{ n int }\nfunc (t T) String() string { return \"v1\" }\nfunc (t *T) Inc(by ...int) (n int) { for _, b := range by { t.n += b }; return t.n }\nfunc (T) Add(int, int) int { return 0 }"},
		{in: "func show(t T) string { return t.String() + \"!\" }\nx := T{1}\nvar s fmt.Stringer = x\nfmt.Println(x, show(x), s, x.Inc(1, 2), x.Add(1, 2))", out: "v1 v1! v1 4 0\n"},
		{in: "func (t T) String() string { return fmt.Sprint(\"v2 \", t.n) }\nfunc (t *T) Inc(by ...int) (n int) { t.n *= 10; return t.n }\nfunc (_ T) Add(a, b int) int { return a + b }"},
		{in: "fmt.Println(x, show(T{2}), s, []T{{5}}, x.Add(1, 2))\nfmt.Println(x.Inc())", out: "v2 4 v2 2! v2 1 [v2 5] 3\n40\n"},
		{in: "func (T) String() string { return \"v3\" }\nfmt.Printf(\"%v %s\\n\", x, s)", out: "v3 v3\n"},
		{in: "func (t T) String() int { return 0 }", err: "in[6]:1:12: method T.String is declared already, as func (T) String() string; the shell replaces a method only with the same receiver and signature: declare the type T again, then its methods"},
		{in: "type R struct{}\nfunc (r R) Safe() (err error) { defer func() { err, _ = recover().(error) }(); return nil }\nfunc (r R) Catch() any { return recover() }"},
		{in: "func (r R) Catch() any { return nil }", err: "in[8]:1:12: method R.Catch is declared already, and the shell cannot replace it"},
		{in: "func (r R) Safe() (err error) { return errors.New(\"new\") }\nR{}.Safe()", out: "new (*errors.errorString)\n"},
	})
}

// TestMethodValues checks that a method value takes its receiver when it
// is evaluated (the interpreter took it when the value was called).
func TestMethodValues(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "type Counter struct{ n int }\nfunc (c Counter) Value() int { return c.n }\nfunc (c *Counter) Inc() { c.n++ }"},
		{in: "c := Counter{}\nv := c.Value\ninc := c.Inc\ninc()\ninc()\nfmt.Println(v(), c.Value(), c.n)", out: "0 2 2\n"},
		{in: "var s fmt.Stringer = time.Second\nf := s.String\ns = time.Minute\nfs := []func() int{c.Value}\nc.Inc()\nb := &strings.Builder{}\nw := b.WriteString\nw(\"ab\")\nfmt.Println(f(), fs[0](), c.n, b.String())", out: "1s 2 3 ab\n"},
	})
}

// TestPointerStringers checks that fmt calls a String method with a
// pointer receiver for a pointer only, as Go does: the interpreter gave
// the value the method too.
func TestPointerStringers(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "type P struct{ X, Y int }\nfunc (p *P) String() string { return fmt.Sprintf(\"P(%d,%d)\", p.X, p.Y) }\np := P{1, 2}"},
		{in: "fmt.Println(p, &p, []*P{&p}, []P{p}, map[string]P{\"a\": p})\nfmt.Printf(\"%v %+v %s\\n\", &p, p, &p)", out: "{1 2} P(1,2) [P(1,2)] [{1 2}] map[a:{1 2}]\nP(1,2) {X:1 Y:2} P(1,2)\n"},
	})
}

// TestPointerMethodsUnexportedFields checks a struct with unexported
// fields whose Error or String method has a pointer receiver: fmt formats
// a value by its fields, under their names as Go writes them (the
// interpreter's structs name them with an X in front: {Xmsg:z}), and a
// pointer by its method, as Go does.
func TestPointerMethodsUnexportedFields(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "type E struct{ msg string }\nfunc (e *E) Error() string { return e.msg }\ntype S struct{ n int; Tag string }\nfunc (s *S) String() string { return \"S!\" }\nv, p, s := E{\"z\"}, &E{\"w\"}, S{3, \"t\"}"},
		{in: "fmt.Printf(\"%v %+v %#v %+v %v %s\\n\", v, v, v, *p, p, []E{v})\nfmt.Println(v, p, []*E{p}, map[string]E{\"k\": v})\nfmt.Printf(\"%+v %v %+v\\n\", s, &s, []S{s})",
			out: "{z} {msg:z} main.E{msg:\"z\"} {msg:w} w [{z}]\n{z} w [w] map[k:{z}]\n{n:3 Tag:t} S! [{n:3 Tag:t}]\n"},
		{in: "v", out: "{msg:z} (main.E)\n"},
	})
}

// TestFuncTypeMethods checks the methods of a declared function type
// whose signatures name the type, called in later inputs: the
// interpreter did not find them ("undefined selector Then").
func TestFuncTypeMethods(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "type Transform func(string) string\nfunc (t Transform) Then(next Transform) Transform { return func(s string) string { return next(t(s)) } }\nfunc (t *Transform) Wrap(w string) { old := *t; *t = func(s string) string { return w + old(s) + w } }"},
		{in: "shout := Transform(strings.ToUpper).Then(func(s string) string { return s + \"!\" })\nfmt.Println(shout(\"hey\"))", out: "HEY!\n"},
		{in: "shout.Wrap(\"*\")\np := &shout\nfmt.Println(shout(\"a\"), p.Then(strings.TrimSpace)(\" b \"))\np.Wrap(\"_\")\nfmt.Println(shout(\"c\"))", out: "*A!* * B !*\n_*C!*_\n"},
	})
}

// TestErrorMethods checks errors.Is, errors.As and errors.Unwrap through
// the Unwrap, Is and As methods of the session's error types, which the
// compiled errors functions (and the helpers' assertions) did not see.
func TestErrorMethods(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "var ErrX = errors.New(\"x\")\ntype PE struct{ Err error }\nfunc (p *PE) Error() string { return \"pe: \" + p.Err.Error() }\nfunc (p *PE) Unwrap() error { return p.Err }\ntype Multi struct{ errs []error }\nfunc (m Multi) Error() string { return \"multi\" }\nfunc (m Multi) Unwrap() []error { return m.errs }"},
		{in: "var e error = &PE{ErrX}\nvar m error = Multi{[]error{errors.New(\"a\"), &PE{ErrX}}}\nvar pe *PE\nfmt.Println(errors.Is(e, ErrX), errors.Unwrap(e) == ErrX, errors.Is(m, ErrX), errors.As(m, &pe), pe.Err == ErrX, errors.Unwrap(m) == nil)", out: "true true true true true true\n"},
		{in: "type NotFound struct{ Key string }\nfunc (e NotFound) Error() string { return \"not found: \" + e.Key }\nfunc (e NotFound) Is(target error) bool { t, ok := target.(NotFound); return ok && (t.Key == \"\" || t.Key == e.Key) }"},
		{in: "err := fmt.Errorf(\"load: %w\", NotFound{\"cfg\"})\nfmt.Println(errors.Is(err, NotFound{}), errors.Is(err, NotFound{\"cfg\"}), errors.Is(err, NotFound{\"x\"}))", out: "true true false\n"},
		{in: "type Timeout interface{ Timeout() bool }\ntype tErr struct{ msg string }\nfunc (t tErr) Error() string { return t.msg }\nfunc (t tErr) Timeout() bool { return true }\ntype Temp struct{ msg string }\nfunc (t *Temp) Error() string { return t.msg }\nfunc (t *Temp) As(target any) bool { if p, ok := target.(*Timeout); ok { *p = tErr{\"as:\" + t.msg}; return true }; return false }"},
		{in: "var to Timeout\nfmt.Println(errors.As(fmt.Errorf(\"w: %w\", &Temp{\"t1\"}), &to), to.Timeout(), to)", out: "true true as:t1\n"},
		// A target that is neither an interface nor an error: Go panics.
		{in: "type plain struct{ n int }\nvar pl plain\nerrors.As(ErrX, &pl)", err: "errors: *target must be interface or implement error"},
	})
}

// TestUnexportedFieldsEncoded checks that encoding/json and encoding/xml
// leave out the unexported fields of the session's structs (the
// interpreter exports them all, as Xname).
func TestUnexportedFieldsEncoded(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "import (\"encoding/json\"; \"encoding/xml\")\ntype Item struct {\n\tName string `json:\"name\" xml:\"name\"`\n\tprice float64 `json:\"price\" db:\"p\"`\n\tx, y int\n\tPub, hid int\n}"},
		{in: "b, _ := json.Marshal(Item{\"pen\", 1.5, 2, 3, 4, 5})\nx, _ := xml.Marshal(struct{ XMLName xml.Name `xml:\"t\"`; V int `xml:\"v\"`; w int }{V: 1, w: 2})\nfmt.Println(string(b), string(x))", out: "{\"name\":\"pen\",\"Pub\":4} <t><v>1</v></t>\n"},
		{in: "var back Item\nfmt.Println(json.Unmarshal([]byte(`{\"name\":\"m\",\"price\":9,\"Xx\":1}`), &back), back)", out: "<nil> {m 0 0 0 0 0}\n"},
	})
}

// TestRecursiveFields checks a struct type that refers to itself, used
// as a field of another struct: at the prompt, declared in one input and
// used in the next, and in a script file. The interpreter built its
// elements' type wrong when it built the container's first (appending to
// fs.Root.Subs failed to compile with "cannot use type main.Dir as type
// unsafe2.dummy").
func TestRecursiveFields(t *testing.T) {
	steps := []evalStep{
		{in: "type Dir struct{ Name string; Subs []Dir; Up *Dir; Idx map[string]*Dir }"},
		{in: "type FS struct{ Root Dir; Cur *Dir }"},
		{in: "fs := FS{}\nfs.Root.Subs = append(fs.Root.Subs, Dir{Name: \"a\"})\nfs.Root.Subs[0].Up = &fs.Root\nfmt.Println(len(fs.Root.Subs), fs.Root.Subs[0].Name, fs.Root.Subs[0].Up == &fs.Root)", out: "1 a true\n"},
		// Declared and used in one input; the container declared first.
		{in: "type Wood struct{ T Tree; All []Tree }\ntype Tree struct{ L, R *Tree; Kids []Tree; V int }\nvar w Wood\nw.T.Kids = append(w.T.Kids, Tree{V: 3})\nw.All = append(w.All, w.T)\nfmt.Println(w.All[0].Kids[0].V)", out: "3\n"},
	}
	runSteps(t, steps)
	src := "package main\n\nimport \"fmt\"\n\ntype FS struct{ Root Dir }\n\ntype Dir struct {\n\tName string\n\tSubs []Dir\n}\n\nfunc main() {\n\tfs := FS{}\n\tfs.Root.Subs = append(fs.Root.Subs, Dir{Name: \"b\"})\n\tfmt.Println(fs.Root.Subs[0].Name)\n}\n"
	s2, out2, _ := newTestSession(t)
	if err := s2.RunSource(context.Background(), "dirs.go", src, false); err != nil {
		t.Fatal(err)
	}
	if got := out2.String(); got != "b\n" {
		t.Errorf("the script printed %q, want %q", got, "b\n")
	}
}

// TestGenericPackageVars checks package-level variables of a script
// whose values use generic functions (the interpreter cannot instantiate
// one while it initialises the variables): standard and the script's
// own, several in one spec, a comma-ok call, and an initialisation
// order that follows the dependencies, as Go's does.
func TestGenericPackageVars(t *testing.T) {
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"maps\"\n\t\"slices\"\n)\n\n" +
		"func Sum[T int | float64](v []T) (s T) {\n\tfor _, x := range v {\n\t\ts += x\n\t}\n\treturn\n}\n\n" +
		"var r = n * 2\nvar n = slices.Max([]int{4, 2})\n" +
		"var a, b = slices.Max([]int{7}), slices.Min([]float64{2.5, 1})\n" +
		"var ks = slices.Sorted(maps.Keys(map[string]int{\"b\": 1, \"a\": 2}))\n" +
		"var tot = Sum([]float64{1, 2.5})\n" +
		"var i, ok = slices.BinarySearch([]int{1, 3, 5}, 3)\n" +
		"var _ = slices.Max([]int{1})\n\n" +
		"func main() {\n\tfmt.Println(r, n, a, b, ks, tot, i, ok, Sum([]int{1, 2}))\n}\n"
	s, out, _ := newTestSession(t)
	if err := s.RunSource(context.Background(), "generic_vars.go", src, false); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "8 4 7 1 [a b] 3.5 1 true 3\n"; got != want {
		t.Errorf("the script printed %q, want %q", got, want)
	}
}

// TestGenericFunctionValues checks instances of generic functions used
// as values, not called (the interpreter compiled one only where it is
// called: "not a generic type"): at the prompt, as arguments (inferred
// too), in a variable of a function type, variadic, and as a script's
// package-level variable.
func TestGenericFunctionValues(t *testing.T) {
	runSteps(t, []evalStep{
		{in: "func Ap[T any](f func(T) T, xs ...T) []T { for i := range xs { xs[i] = f(xs[i]) }; return xs }\nfunc Dbl[T int | float64](x T) T { return 2 * x }\nfunc Pr[T any](xs ...T) { fmt.Println(len(xs), xs) }"},
		{in: "f := slices.Max[[]int]; var g func([]int) int = slices.Min; fmt.Println(f([]int{2, 9}), g([]int{2, 9}))", out: "9 2\n"},
		{in: "fmt.Println(Ap(Dbl[int], 1, 2), Ap(Dbl, 1.5))", out: "[2 4] [3]\n"},
		{in: "p := Pr[string]; p(\"a\", \"b\"); p()", out: "2 [a b]\n0 []\n"},
	})
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"slices\"\n\t\"strings\"\n)\n\n" +
		"func Ap[T any](f func(T) T, xs ...T) []T {\n\tfor i := range xs {\n\t\txs[i] = f(xs[i])\n\t}\n\treturn xs\n}\n\n" +
		"var up = Ap[string]\nvar mx = slices.Max[[]int]\n\n" +
		"func main() {\n\tfmt.Println(up(strings.ToUpper, \"a\", \"b\"), mx([]int{4, 7}))\n}\n"
	s, out, _ := newTestSession(t)
	if err := s.RunSource(context.Background(), "generic_values.go", src, false); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "[A B] 7\n"; got != want {
		t.Errorf("the script printed %q, want %q", got, want)
	}
}

// runSteps evaluates the steps in one new session, each printing its
// out.
func runSteps(t *testing.T, steps []evalStep) {
	t.Helper()
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, steps)
}
