package repl

import (
	"context"
	"go/types"
	"strings"
	"testing"
)

// TestCheck runs inputs that Go's type checker decides: what Go rejects
// is an error in the compiler's words, at the input's position, and
// nothing of the input runs; what Go accepts runs.
func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		steps []evalStep
	}{
		{"two results in a one-value context", []evalStep{
			{in: `func f() (int, error) { return 7, fmt.Errorf("bad") }`},
			{in: "x := f()", err: "in[2]:1:6: assignment mismatch: 1 variable but f returns 2 values"},
			{in: "f() + 1", err: "in[3]:1:1: multiple-value f() (value of type (int, error)) in single-value context"},
			{in: "var y int = f()", err: "in[4]:1:13: multiple-value f() (value of type (int, error)) in single-value context"},
			{in: "x", err: "in[5]:1:1: undefined: x"},
		}},
		{"an action of a failed RDD", []evalStep{
			{in: `bad := sc.Parallelize([]int{1, 2}, 2)`},
			{in: "k := bad.Count()", err: "assignment mismatch: 1 variable but bad.Count returns 2 values"},
		}},
		{"nothing runs when a later line is wrong", []evalStep{
			{in: "fmt.Println(\"ran\")\nn := 1\nn.Foo()", err: "in[1]:3:3: n.Foo undefined (type int has no field or method Foo)"},
			{in: "n", err: "undefined: n"},
		}},
		{"the compiler's words for types", []evalStep{
			{in: `var s string = 3`, err: "in[1]:1:16: cannot use 3 (untyped int constant) as string value in variable declaration"},
			{in: `a := 1; a = "x"`, err: `in[2]:1:13: cannot use "x" (untyped string constant) as int value in assignment`},
			{in: `strings.Repeat("a")`, err: "in[3]:1:19: not enough arguments in call to strings.Repeat\n\thave (string)\n\twant (string, int)"},
			{in: "if true { y := 1; y := 2 }", err: "in[4]:1:21: no new variables on left side of :="},
			{in: "a?", err: "in[5]:1:2: illegal character U+003F '?'"},
		}},
		// Types that contain themselves two types deep overflow the
		// interpreter's stack, which ends the process: they are refused,
		// the struct form they are pointed to works, and types one type
		// deep are declared as before.
		{"a type that contains itself two types deep", []evalStep{
			{in: "type L []map[int]L", err: "in[1]:1:6: type L is []map[int]L: it contains itself two types deep, which the interpreter cannot use (its stack overflows); a struct type may contain itself at any depth: type L struct{ V []map[int]L }"},
			{in: "func f() { type G []struct{ g G }; _ = G{} }", err: "in[2]:1:17: type G is []struct{g G}: it contains itself two types deep"},
			{in: "type F func() []F", err: "type F is func() []F: it contains itself two types deep"},
			{in: "type L struct{ V []map[int]L }\nfmt.Println(L{V: []map[int]L{{1: {}}}})", out: "{[map[1:{[]}]]}\n"},
			{in: "type S []S\ntype Fn func(Fn) Fn\ntype M map[string]M"},
		}},
		// A generic type with two or more type parameters that refers to
		// itself overflowed the interpreter's stack when instantiated: it
		// is refused; one type parameter, or indices in place of
		// pointers, work.
		{"a generic type with two type parameters that refers to itself", []evalStep{
			{in: "type node[K comparable, V any] struct { k K; v V; next *node[K, V] }", err: "in[1]:1:6: type node[K, V] refers to itself and has 2 type parameters, which the interpreter cannot instantiate (its stack overflows)"},
			{in: "type tree[K comparable, V any] struct { kids map[K][]tree[K, V]; v V }", err: "type tree[K, V] refers to itself and has 2 type parameters"},
			{in: "type list[T any] struct { v T; next *list[T] }\nl := &list[int]{v: 1, next: &list[int]{v: 2}}\nl.next.v", out: "2 (int)\n"},
			{in: "type pnode[K comparable, V any] struct { k K; v V; next int }\nnodes := []pnode[string, int]{{\"a\", 1, 1}, {\"b\", 2, -1}}\nnodes[nodes[0].next].k", out: "\"b\" (string)\n"},
		}},
		// The interpreter keeps a generic type's compiled methods by name
		// and type arguments: the second type's instance gets type
		// arguments of its own (rewrite_shadow.go), across inputs.
		{"two generic types with methods of one name", []evalStep{
			{in: "type Stack[T any] struct{ items []T }\nfunc (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }\nfunc (s *Stack[T]) Len() int { return len(s.items) }"},
			{in: "s := &Stack[int]{}\ns.Push(1)"},
			{in: "type Queue[T any] struct{ items []T }\nfunc NewQueue[T any]() *Queue[T] { return &Queue[T]{} }\nfunc (q *Queue[T]) Push(v T) { q.items = append(q.items, v, v) }\nfunc (q *Queue[T]) Len() int { return 10 * len(q.items) }"},
			{in: "q := NewQueue[int]()\nq.Push(1)\nvar n int = q.items[1]"},
			{in: `fmt.Println(s.Len(), q.Len(), n, s.items, q.items)`, out: "1 20 1 [1] [1 1]\n"},
			{in: `fmt.Printf("%T %v\n", q, *q)`, out: "*main.Queue[int] {[1 1]}\n"},
		}},
		// One input (a notebook cell) whose functions and types use
		// types and constants declared further down, as a Go file may
		// (typesFirst).
		{"types declared after their uses, in one input", []evalStep{
			{in: "func area(r Rect) float64 { return r.W * r.H * Scale }\ntype Rect struct{ W, H float64; K Kind }\nfunc (k Kind) String() string { return \"kind\" }\ntype Kind int\nconst Scale = 2\nfmt.Println(area(Rect{1, 2, 0}), Rect{}.K)", out: "4 kind\n"},
		}},
		// A value of an instance made by an earlier input, printed by a
		// later one that names no instance: the session remembers the
		// instances its inputs used (pastInstances).
		{"instances of earlier inputs in interfaces", []evalStep{
			{in: "type Set[T comparable] map[T]struct{}\nfunc (s Set[T]) Add(v T) { s[v] = struct{}{} }\ntype Log[T any] struct{ lines []T }\nfunc (l *Log[T]) Add(v T) { l.lines = append(l.lines, v) }"},
			{in: "seen := Set[string]{}\nlog := &Log[string]{}\nseen.Add(\"a\")\nlog.Add(\"b\")\nitems := []any{seen, log, Set[int]{}}"},
			{in: `for _, it := range items { fmt.Printf("%T ", it) }`, out: "main.Set[string] *main.Log[string] main.Set[int] "},
			{in: `fmt.Printf("%v %+v\n", items[1], items[0])`, out: "&{[b]} map[a:{}]\n"},
			{in: `fmt.Println(items...)`, out: "map[a:{}] &{[b]} map[]\n"},
		}},
		// A failure of the interpreter on generic code names the forms it
		// fails on.
		{"a known failure of the interpreter's generics", []evalStep{
			{in: "type ID int\nfunc Count[T comparable](xs []T) int { return len(xs) }\ntype Bag[T comparable] struct{ xs []T }\nfunc (b *Bag[T]) N() int { return Count(b.xs) }\nfmt.Println((&Bag[ID]{}).N())",
				err: "the interpreter failed on this input: runtime error: invalid memory address or nil pointer dereference\nthe interpreter's generics fail on some forms"},
			// The input that fails only uses the generic code.
			{in: "type ID int\nfunc Count[T comparable](xs []T) int { return len(xs) }\ntype Bag[T comparable] struct{ xs []T }\nfunc (b *Bag[T]) N() int { return Count(b.xs) }"},
			{in: "(&Bag[ID]{}).N()", err: "nil pointer dereference\nthe interpreter's generics fail on some forms"},
			{in: "Count([]ID{1, 2})", out: "2 (int)\n"},
		}},
		// As the go command reports them: at the call's parenthesis; the
		// shell's own source of slices is not named.
		{"type arguments that cannot be inferred", []evalStep{
			{in: "func Zero[T any]() T { var z T; return z }"},
			{in: "x := 1 + Zero()", err: "in[2]:1:14: in call to Zero, cannot infer T (declared at in[1]:1:11)"},
			{in: "fmt.Println(slices.Collect(nil))", err: "in[3]:1:27: in call to slices.Collect, cannot infer E"},
		}},
		{"a variable used above the statement that declares it is undefined, as in a function's body", []evalStep{
			{in: "var a = b + 1\nvar b = 2\nfmt.Println(a, b)", err: "in[1]:1:9: undefined: b"},
			{in: "fmt.Println(c)\nc := 3", err: "in[2]:1:13: undefined: c"},
			{in: "f := func() int { return d }\nvar d = 4\nfmt.Println(f())", err: "in[3]:1:26: undefined: d"},
			// Declared by an earlier input too: the shell cannot use that
			// one there, and says so.
			{in: "var e = 5"},
			{in: "k := e + 1\nvar e = 6\nfmt.Println(k, e)", err: "in[5]:1:6: e is declared again below, at in[5]:2:1: the shell cannot use the earlier e above that"},
			{in: "k := e + 1\nfmt.Println(k)", out: "6\n"},
		}},
		{"every error, in order, as the go command reports them", []evalStep{
			{in: "a := undefinedA + undefinedB\nb := undefinedC", err: "in[1]:1:6: undefined: undefinedA\nin[1]:1:19: undefined: undefinedB\nin[1]:2:6: undefined: undefinedC"},
			{in: "func f() {\n\tx := strconv.Itoa\n\tvar n int = \"s\"\n}", err: "in[2]:2:2: declared and not used: x\nin[2]:3:6: declared and not used: n\nin[2]:3:14: cannot use \"s\" (untyped string constant) as int value in variable declaration"},
			{in: "func g() {\n" + strings.Repeat("\t_ = undefinedName\n", 12) + "}", err: "in[3]:11:6: undefined: undefinedName\nin[3]:11:6: too many errors"},
		}},
		{"unused variables and imports are fine at the top level", []evalStep{
			{in: `import "bytes"`},
			{in: "n := 2"},
			// A variable of a block among them is Go's.
			{in: "for i := 0; i < 2; i++ { v := i }", err: "in[3]:1:26: declared and not used: v"},
			{in: "f := func() { w := 1 }", err: "in[4]:1:15: declared and not used: w"},
			{in: "func g() { v := 1 }", err: "in[5]:1:12: declared and not used: v"},
			// A whole file is Go's: its unused imports are errors.
			{in: "package main\nimport (\n\t\"fmt\"\n\t\"os\"\n)\nfunc main() { fmt.Println() }", err: "in[6]:4:2: \"os\" imported and not used"},
			{in: "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"used\") }", out: "used\n"},
		}},
		{"a declaration replaces an earlier one", []evalStep{
			{in: "x := 1"},
			{in: `x := "one"`},
			{in: `x + "!"`, out: "\"one!\" (string)\n"},
			{in: "func f() int { return 1 }"},
			{in: `func f() string { return "f" }`},
			{in: "f() + x", out: "\"fone\" (string)\n"},
			{in: "const c = 2"},
			{in: "c := []int{c}"},
			{in: "c", out: "[2] ([]int)\n"},
		}},
		{"a declaration replaces an earlier one of the same input", []evalStep{
			{in: "x := 1; fmt.Println(x + 1)\nx := \"s\"; fmt.Println(x + \"!\")\ntype T int\nvar t T = 3\ntype T string\nfmt.Println(t, T(\"u\"))", out: "2\ns!\n3 u\n"},
			{in: "x", out: "\"s\" (string)\n"},
			{in: "y := 1; z := y; y := 2; u := undefinedName", err: "in[3]:1:30: undefined: undefinedName"},
			{in: "z", err: "undefined: z"},
		}},
		{"x := x + 1 uses the old x", []evalStep{
			{in: "x := 20"},
			{in: "x := x + 1"},
			{in: "x := fmt.Sprint(x, x)"},
			{in: "x", out: "\"21 21\" (string)\n"},
		}},
		{"a type declared again replaces the old one", []evalStep{
			{in: "type point struct{ X int }"},
			{in: "p := point{1}"},
			{in: "type point struct{ X, Y int }"},
			{in: "q := point{1, 2}; fmt.Println(q.Y)", out: "2\n"},
			{in: "p.X", out: "1 (int)\n"},
			{in: "p.Y", err: "p.Y undefined (type point has no field or method Y)"},
			{in: "func (p point) Sum() int { return p.X + p.Y }"},
			{in: "q.Sum()", out: "3 (int)\n"},
		}},
		{"methods added later", []evalStep{
			{in: "type T struct{ N int }"},
			{in: "t := T{2}"},
			{in: "func (t T) Twice() int { return 2 * t.N }"},
			{in: "t.Twice()", out: "4 (int)\n"},
			{in: "func (t T) Twice() string { return fmt.Sprint(t.N, t.N) }", err: "in[5]:1:12: method T.Twice is declared already, as func (T) Twice() int; the shell replaces a method only with the same receiver and signature: declare the type T again, then its methods"},
			{in: "type T struct{ N int }\nfunc (t T) Twice() string { return fmt.Sprint(t.N, t.N) }"},
			{in: "T{2}.Twice() + \"!\"", out: "\"2 2!\" (string)\n"},
			{in: "t.Twice()", out: "4 (int)\n"},
			{in: "type Stack[E any] struct{ items []E }"},
			{in: "func (s *Stack[E]) Push(v E) { s.items = append(s.items, v) }"},
			{in: "st := &Stack[string]{}; st.Push(\"a\"); st.Push(\"b\")"},
			{in: "len(st.items)", out: "2 (int)\n"},
		}},
		{"a package name can be taken", []evalStep{
			{in: "data := []int{1, 2}"},
			{in: "len(data)", out: "2 (int)\n"},
			{in: "func rdd(n int) int { return 2 * n }"},
			{in: "func display() int { return rdd(len(data)) }"},
			{in: "display()", out: "4 (int)\n"},
			{in: "type iter struct{ N int }\ncmp := iter{3}\nfunc maps(i iter) int { return i.N * 2 }"},
			{in: "maps(cmp)", out: "6 (int)\n"},
			{in: "fmt.Printf(\"%T\\n\", cmp)", out: "main.iter\n"},
		}},
		{"comma-ok assertions of a nil interface to an interface type", []evalStep{
			{in: "var x any\nvar e error\nv, ok := x.(error)\nvar s, ok2 = e.(fmt.Stringer)\nfmt.Println(v, ok, s, ok2)", out: "<nil> false <nil> false\n"},
			{in: "func kind(e error) string { if _, ok := e.(interface{ Timeout() bool }); ok { return \"timeout\" }; switch e.(type) { case fmt.Stringer: return \"stringer\"; case nil: return \"nil\" }; return \"other\" }"},
			{in: "fmt.Println(kind(nil), kind(errors.New(\"x\")))", out: "nil other\n"},
			{in: "var sv fmt.Stringer = time.Second\nvar a any = sv\nst, isStringer := a.(fmt.Stringer)\nfmt.Println(st, isStringer)", out: "1s true\n"},
		}},
		{"the standard library's generic packages need no import", []evalStep{
			{in: "s := []int{3, 1, 2}; slices.Sort(s); s", out: "[1 2 3] ([]int)\n"},
			{in: "slices.Max(s) + slices.Index(s, 2)", out: "4 (int)\n"},
			{in: `m := map[string]int{"b": 2, "a": 1}; c := maps.Clone(m); c["z"] = 26`},
			{in: "fmt.Println(slices.Sorted(maps.Keys(c)), len(m), cmp.Compare(len(m), len(c)))", out: "[a b z] 2 -1\n"},
			{in: "func count(n int) iter.Seq[int] { return func(yield func(int) bool) { for i := range n { if !yield(i) { return } } } }"},
			{in: "slices.Collect(count(3))", out: "[0 1 2] ([]int)\n"},
			{in: "func Map[T, U any](xs []T, f func(T) U) []U { var out []U; for _, x := range xs { out = append(out, f(x)) }; return out }"},
			{in: "Map([]int{1, 2}, func(i int) string { return fmt.Sprint(i * 2) })", out: "[2 4] ([]string)\n"},
			{in: "type Number interface{ ~int | ~float64 }\nfunc Sum[T Number](xs ...T) T { var t T; for _, x := range xs { t += x }; return t }\ntype Celsius float64"},
			{in: "fmt.Println(Sum(1, 2), Sum(1.5, 2), Sum(Celsius(3), 4))", out: "3 3.5 7\n"},
			{in: "func Half[T ~int | ~float64](x T) T { return x / 2 }\nfmt.Println(Half(7), Half(7.0))", out: "3 3.5\n"},
			// A union of constraint interfaces written in the type
			// parameter list (unionConstraints).
			{in: "type Integer interface{ ~int | ~int64 }\ntype Float interface{ ~float32 | ~float64 }"},
			{in: "func Abs[T Integer | Float](x T) T { if x < 0 { return -x }; return x }\nfmt.Println(Abs(-3), Abs(float32(-1.5)), Abs(Celsius(-2)))", out: "3 1.5 2\n"},
			// A pointer to an instance with two type arguments, defined
			// at the prompt (nilPointerVars), and a comma-ok lookup
			// in a method of the generic type (mapLookups).
			{in: "type Store[K comparable, V any] struct{ m map[K]Box[V] }\ntype Box[V any] struct{ v V }\nfunc NewStore[K comparable, V any]() *Store[K, V] { return &Store[K, V]{m: map[K]Box[V]{}} }\nfunc (s *Store[K, V]) Get(k K) (V, bool) { b, ok := s.m[k]; return b.v, ok }"},
			{in: "st := NewStore[string, int]()\nst.m[\"a\"] = Box[int]{4}\nfmt.Println(st.Get(\"a\"))\nfmt.Println(st.Get(\"b\"))", out: "4 true\n0 false\n"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runSteps(t, tc.steps)
		})
	}
}

// TestResetShadows checks that a reset forgets the instances given type
// arguments of their own (rewrite_shadow.go), whose types the new
// interpreter lacks: a Queue[int] after it failed ("nil reflect type").
func TestResetShadows(t *testing.T) {
	s, out, _ := newTestSession(t)
	steps := []string{
		"type Stack[T any] struct{ xs []T }\nfunc (s *Stack[T]) Len() int { return len(s.xs) }",
		"type Queue[T any] struct{ xs []T; n int }\nfunc (q *Queue[T]) Len() int { return len(q.xs) + q.n }",
		"s, q := &Stack[int]{}, &Queue[int]{n: 2}\nfmt.Println(s.Len(), q.Len())",
	}
	for _, in := range steps {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	for _, in := range steps[1:2] {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatalf("%q after the reset: %v", in, err)
		}
	}
	if err := s.Eval(context.Background(), "q := &Queue[int]{n: 3}\nfmt.Printf(\"%d %T\\n\", q.Len(), q)"); err != nil {
		t.Fatalf("after the reset: %v", err)
	}
	if got, want := out.String(), "3 *main.Queue[int]\n"; got != want {
		t.Errorf("after the reset: printed %q, want %q", got, want)
	}
}

// TestSyntaxErrorOnce checks that a syntax error is reported once, at
// the input's line: not again where the parser, recovering, ran into
// the text the shell wraps the input in.
func TestSyntaxErrorOnce(t *testing.T) {
	s, _, _ := newTestSession(t)
	for _, tc := range []struct{ in, want string }{
		{"a?", "in[1]:1:2: illegal character U+003F '?'"},
		{"x := 1\nfor i := 0; i < 3; i++ { x += i ? }", "in[2]:2:33: illegal character U+003F '?'"},
	} {
		err := s.Eval(context.Background(), tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want exactly %q", tc.in, err, tc.want)
		}
	}
}

// TestInferError checks that inferError leaves out the shell's own
// source's position and keeps the user's.
func TestInferError(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"in call to slices.Collect, cannot infer E (declared at _.go:20:31)", "in call to slices.Collect, cannot infer E"},
		{"in call to Zero, cannot infer T (declared at in[1]:1:11)", "in call to Zero, cannot infer T (declared at in[1]:1:11)"},
	} {
		if got := inferError(types.Error{Msg: tc.msg}, nil).Msg; got != tc.want {
			t.Errorf("inferError(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
