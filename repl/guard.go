package repl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"math"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/repl/internal/stack"
)

// Guards keep user code from ending the process, which the Go runtime
// does without a chance to recover when a goroutine's stack passes its
// limit (1 GB) or when an allocation cannot be satisfied. Inputs are
// rewritten so that both become ordinary run-time panics, reported as
// an input's error like any other:
//
//   - every function body starts with a count of calls, and every
//     probeEvery calls the runtime's Probe measures the calling
//     goroutine's stack: past the session's stack limit it panics with a
//     *StackOverflowError, naming the function;
//   - make(T, n), make(T, n, c) and make(map[K]V, n) ask the runtime's
//     MakeSize first, which refuses, with a *MemoryError, a size that does
//     not fit in the session's memory budget.

// callsVar is the interpreted counter of function calls that decides when
// to probe the stack.
const callsVar = rtName + "_calls"

// probeEvery is how many interpreted calls pass between probes of the
// stack (a power of two). A call uses well under 4 KiB of stack, so the
// stack grows by at most a few MiB between probes.
const probeEvery = 1024

// guard adds the stack probe to the function bodies in node and routes
// the sizes of make through the memory check.
func (r *rewriter) guard(node ast.Node) {
	var walk func(n ast.Node, typeParams map[string]bool)
	walk = func(n ast.Node, typeParams map[string]bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body == nil {
					return false
				}
				tp := withTypeParams(typeParams, n)
				probe(n.Body, funcName(n), n.Type)
				walk(n.Body, tp)
				return false
			case *ast.FuncLit:
				probe(n.Body, "func literal", n.Type)
				walk(n.Body, typeParams)
				return false
			case *ast.CallExpr:
				guardMake(n, typeParams)
			}
			return true
		})
	}
	walk(node, nil)
	guardRecover(node)
}

// probe puts the call count and the stack probe at the start of body:
//
//	_sn_calls++
//	if _sn_calls%probeEvery == 0 { _sn.Probe(name) }
//
// The statements take the position pos of the function's func keyword:
// the interpreter places a panic that passes through a function at its
// first statement, which this makes the function's declaration. The test
// is a remainder, not a mask (_sn_calls&(probeEvery-1)): in a method of a
// generic type, a comparison of a sum, product or bitwise operation made
// the interpreter take a generic function that instantiates the type
// (a make or var of a []Pair[K, V] appended to) for a plain one, which
// then failed to compile ("not a generic type"); a remainder takes
// another path in its compiler.
func probe(body *ast.BlockStmt, name string, ft *ast.FuncType) {
	pos := ft.Func
	blankParams(ft)
	count := &ast.IncDecStmt{X: ident(callsVar, pos), TokPos: pos, Tok: token.INC}
	check := &ast.IfStmt{
		If: pos,
		Cond: &ast.BinaryExpr{
			X: &ast.BinaryExpr{
				X: ident(callsVar, pos), OpPos: pos, Op: token.REM,
				Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(probeEvery)},
			},
			OpPos: pos, Op: token.EQL,
			Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"},
		},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			rtCall("Probe", pos, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(name)}),
		}},
	}
	body.List = append([]ast.Stmt{count, check}, body.List...)
}

// blankParams names the unnamed parameters of a function "_". The
// interpreter passes the arguments of a function whose parameters have no
// names into the wrong variables once its body starts with the probe's
// statements (func(*int) int { ... } then fails with "reflect.Set: value
// of type *int is not assignable to type int"); blank names change nothing
// else.
func blankParams(ft *ast.FuncType) {
	if ft.Params == nil {
		return
	}
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			f.Names = []*ast.Ident{ident("_", f.Type.Pos())}
		}
	}
}

// funcName is the name of a declared function or method, as T.M for a
// method.
func funcName(fd *ast.FuncDecl) string {
	if recv := recvName(fd); recv != "" {
		return recv + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// withTypeParams adds the type parameters of a generic function, or of
// the receiver of a generic type's method, to outer.
func withTypeParams(outer map[string]bool, fd *ast.FuncDecl) map[string]bool {
	var names []string
	if fd.Type.TypeParams != nil {
		for _, f := range fd.Type.TypeParams.List {
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
		}
	}
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		t := fd.Recv.List[0].Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		var idx []ast.Expr
		switch x := t.(type) {
		case *ast.IndexExpr:
			idx = []ast.Expr{x.Index}
		case *ast.IndexListExpr:
			idx = x.Indices
		}
		for _, e := range idx {
			if id, ok := e.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
	}
	if len(names) == 0 {
		return outer
	}
	tp := map[string]bool{}
	for k := range outer {
		tp[k] = true
	}
	for _, n := range names {
		tp[n] = true
	}
	return tp
}

// guardMake rewrites make(T, ..., n) as make(T, ..., _sn.MakeSize("T",
// (*T)(nil), n)): the last size argument, the one that decides how much
// memory make asks for, goes through the check. Small literal sizes and
// types that mention a type parameter are left alone.
func guardMake(call *ast.CallExpr, typeParams map[string]bool) {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Name != "make" || len(call.Args) < 2 || call.Ellipsis.IsValid() {
		return
	}
	typ := call.Args[0]
	last := len(call.Args) - 1
	size := call.Args[last]
	if lit, ok := size.(*ast.BasicLit); ok && lit.Kind == token.INT {
		if v, err := strconv.ParseInt(lit.Value, 0, 64); err == nil && v < 1<<20 {
			return
		}
	}
	if mentions(typ, typeParams) {
		return
	}
	switch typ.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.Ident, *ast.SelectorExpr, *ast.ParenExpr:
	default:
		return
	}
	pos := size.Pos()
	var text bytes.Buffer
	printer.Fprint(&text, token.NewFileSet(), typ)
	// Types declared again have internal names by now: show the user's.
	what := internalNames.ReplaceAllString(text.String(), "$1")
	text.Reset()
	text.WriteString(what)
	if last > 1 {
		text.WriteString(", …") // the length, before the capacity
	}
	proto := &ast.CallExpr{
		Fun:    &ast.ParenExpr{Lparen: pos, X: &ast.StarExpr{Star: pos, X: copyExpr(typ)}, Rparen: pos},
		Lparen: pos, Args: []ast.Expr{ident("nil", pos)}, Rparen: pos,
	}
	call.Args[last] = &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("MakeSize", pos)},
		Lparen: pos,
		Args:   []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(text.String())}, proto, size},
		Rparen: pos,
	}
}

// mentions reports whether the expression e (a type, or a value) uses
// one of names.
func mentions(e ast.Expr, names map[string]bool) bool {
	if len(names) == 0 {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

// copyExpr returns a deep copy of the expression e (a type, or a value
// evaluated a second time), so that the rewritten tree shares no nodes.
func copyExpr(e ast.Expr) ast.Expr {
	return copyNode(reflect.ValueOf(e)).Interface().(ast.Expr)
}

func copyNode(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if _, isObj := v.Interface().(*ast.Object); isObj {
			return v // resolution data, shared
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(copyNode(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(copyNode(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			if c.Field(i).CanSet() {
				c.Field(i).Set(copyNode(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(copyNode(v.Index(i)))
		}
		return c
	}
	return v
}

// StackOverflowError is the panic value with which a goroutine's
// interpreted calls stop when they nest too deeply: past the session's
// stack limit (Options.StackLimit), well before the Go runtime's own
// limit, which would end the process.
type StackOverflowError struct {
	Func  string // the interpreted function being called
	Used  int64  // bytes of stack the goroutine used
	Limit int64  // the session's stack limit
}

func (e *StackOverflowError) Error() string {
	return fmt.Sprintf("runtime error: stack overflow: calls of %s nest too deeply (the goroutine's stack passed the shell's limit of %s); is the recursion unbounded?",
		e.Func, formatBytes(e.Limit))
}

// RuntimeError marks the error as a run-time error, as runtime.Error.
func (e *StackOverflowError) RuntimeError() {}

// MemoryError is the panic value with which make refuses a size that
// does not fit in the session's memory budget (Options.MemoryBudget, the
// flag --memory), and the error of an input stopped because the heap grew
// past the budget.
type MemoryError struct {
	What   string // the allocation: make([]float64, 1099511627776); "" for the heap's growth
	Need   int64  // bytes it asks for
	Budget int64  // the session's budget
	InUse  int64  // bytes the heap held already
}

func (e *MemoryError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("runtime error: out of memory: the heap grew to %s, past the session's memory budget of %s, and the running code was stopped (sparknet-shell --memory SIZE changes the budget)",
			formatBytes(e.InUse), formatBytes(e.Budget))
	}
	msg := fmt.Sprintf("runtime error: %s needs %s, more than the session's memory budget of %s", e.What, formatBytes(e.Need), formatBytes(e.Budget))
	if e.Need <= e.Budget {
		msg = fmt.Sprintf("runtime error: %s needs %s; with the %s in use that passes the session's memory budget of %s", e.What, formatBytes(e.Need), formatBytes(e.InUse), formatBytes(e.Budget))
	}
	return msg + " (sparknet-shell --memory SIZE changes it)"
}

// RuntimeError marks the error as a run-time error, as runtime.Error.
func (e *MemoryError) RuntimeError() {}

var (
	_ runtime.Error = (*StackOverflowError)(nil)
	_ runtime.Error = (*MemoryError)(nil)
)

// probeStack is the runtime's Probe: it panics when the calling
// goroutine's stack has grown past the session's limit.
//
// It stops the interpreter rather than panicking: a panic would unwind
// the interpreter's frames in time quadratic in their number (each frame
// recovers and panics again), and on a stack that may pass the Go
// runtime's limit on the way.
func (s *Session) probeStack(name string) {
	if used, ok := stack.Used(); ok && int64(used) > s.stackLimit {
		s.stopFor(&StackOverflowError{Func: name, Used: int64(used), Limit: s.stackLimit})
	}
}

// makeSize is the runtime's MakeSize: it returns n, the last size
// argument of make(T, ...), as an int, or panics with a *MemoryError
// when make would ask for more memory than the budget leaves. proto is a
// nil *T; what is the type argument's text (and ", …" when n is a
// capacity), for the message.
func (s *Session) makeSize(what string, proto any, n any) int {
	count, ok := toInt64(n)
	if !ok {
		panic(fmt.Sprintf("make: size %v of type %T is not an integer", n, n))
	}
	t := reflect.TypeOf(proto)
	if t == nil || t.Kind() != reflect.Pointer || count <= 0 {
		return clampInt(count)
	}
	t = t.Elem()
	var per int64
	switch t.Kind() {
	case reflect.Slice, reflect.Chan:
		per = int64(t.Elem().Size())
	case reflect.Map:
		// A map entry holds its key and value and a byte of hash, in
		// buckets that are not full.
		per = (int64(t.Key().Size()) + int64(t.Elem().Size()) + 1) * 8 / 7
	default:
		return clampInt(count)
	}
	if per == 0 {
		return clampInt(count)
	}
	desc := fmt.Sprintf("make(%s, %d)", what, count)
	if count > s.budget/per {
		need := int64(math.MaxInt64)
		if count <= math.MaxInt64/per {
			need = count * per
		}
		panic(&MemoryError{What: desc, Need: need, Budget: s.budget})
	}
	need := count * per
	if need < 1<<20 {
		return int(count)
	}
	if inUse := heapInUse(); need > s.budget-inUse {
		runtime.GC() // what is in use may be garbage
		if inUse = heapInUse(); need > s.budget-inUse {
			panic(&MemoryError{What: desc, Need: need, Budget: s.budget, InUse: inUse})
		}
	}
	return int(count)
}

// watchInterval is how often the session compares the heap with its
// memory budget while interpreted code runs.
const watchInterval = 50 * time.Millisecond

// watchMemory stops the running code when the heap grows past the memory
// budget, until stop is closed: memory that grows step by step (append
// in an endless loop) would otherwise end the process when it runs out.
// It looks only while an input or a goroutine it started runs; after a
// stop it waits for the heap to grow by another tenth before the next.
func (s *Session) watchMemory(stop <-chan struct{}) {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	floor := s.budget
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		s.exec.mu.Lock()
		busy := s.exec.cancel != nil
		s.exec.mu.Unlock()
		if !busy && s.live.Load() == 0 {
			continue
		}
		if heapInUse() <= floor {
			continue
		}
		runtime.GC() // what is in use may be garbage
		if inUse := heapInUse(); inUse > floor {
			s.stopFor(&MemoryError{Budget: s.budget, InUse: inUse})
			floor = max(s.budget, inUse+inUse/10)
		}
	}
}

// guardSymbols replaces the standard library's functions that make a
// value of a size their arguments give, and that the interpreter calls
// as compiled code, with versions that check the size against the
// memory budget first: strings.Repeat and bytes.Repeat.
func (s *Session) guardSymbols(ex map[string]map[string]reflect.Value) {
	replace := func(pkg, name string, f any) {
		if ex[pkg] == nil {
			return
		}
		syms := map[string]reflect.Value{}
		for n, v := range ex[pkg] {
			syms[n] = v
		}
		syms[name] = reflect.ValueOf(f)
		ex[pkg] = syms
	}
	replace("strings/strings", "Repeat", func(str string, count int) string {
		s.checkRepeat("strings.Repeat", len(str), count)
		return strings.Repeat(str, count)
	})
	replace("bytes/bytes", "Repeat", func(b []byte, count int) []byte {
		s.checkRepeat("bytes.Repeat", len(b), count)
		return bytes.Repeat(b, count)
	})
	s.wakerSymbols(replace)
}

// checkRepeat panics with a *MemoryError when count copies of n bytes do
// not fit in the memory budget.
func (s *Session) checkRepeat(fn string, n, count int) {
	if n <= 0 || count <= 0 {
		return
	}
	if int64(count) > s.budget/int64(n) {
		need := int64(math.MaxInt64)
		if int64(count) <= math.MaxInt64/int64(n) {
			need = int64(n) * int64(count)
		}
		panic(&MemoryError{What: fmt.Sprintf("%s(%d bytes, %d)", fn, n, count), Need: need, Budget: s.budget})
	}
}

// heapInUse returns the bytes of heap objects, live or not yet swept.
func heapInUse() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// toInt64 converts an integer of any integer type (or an untyped
// constant, which arrives as an int) to int64; values above MaxInt64
// become MaxInt64.
func toInt64(n any) (int64, bool) {
	v := reflect.ValueOf(n)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := v.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
		return math.MaxInt64, true
	case reflect.Float32, reflect.Float64:
		// An untyped constant such as 1e6 arrives as a float.
		if f := v.Float(); f == math.Trunc(f) && math.Abs(f) < math.MaxInt64 {
			return int64(f), true
		}
	}
	return 0, false
}

// clampInt converts n to int; on 32-bit platforms a size beyond int
// becomes -1, which make rejects with Go's own message.
func clampInt(n int64) int {
	if n > math.MaxInt || n < math.MinInt {
		return -1
	}
	return int(n)
}

// formatBytes writes n bytes in binary units: 512 B, 1.5 KiB, 8 TiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := -1
	for f >= unit && i < len(units)-1 {
		f /= unit
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") + " " + units[i]
}
