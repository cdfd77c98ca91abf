package repl

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/sparknet-go/sparknet/repl/typecheck"
)

// fmtShims maps fmt's formatting functions to the runtime's shims, which
// give %T the names of the session's types (see rtnames.go).
var fmtShims = map[string]string{
	"Printf":   "Printf",
	"Sprintf":  "Sprintf",
	"Fprintf":  "Fprintf",
	"Errorf":   "Errorf",
	"Appendf":  "Appendf",
	"Print":    "Print",
	"Println":  "Println",
	"Sprint":   "Sprint",
	"Sprintln": "Sprintln",
	"Fprint":   "Fprint",
	"Fprintln": "Fprintln",
}

// fmtFirst is the index of the first argument of fmt's functions that is
// formatted.
var fmtFirst = map[string]int{
	"Printf": 1, "Sprintf": 1, "Errorf": 1, "Fprintf": 2, "Appendf": 2,
	"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0, "Fprint": 1, "Fprintln": 1,
}

// names makes the session's types keep their names and methods where
// their values reach compiled code:
//
//   - fmt's formatting functions become the runtime's shims, and an
//     argument whose type the interpreter cannot name is passed with its
//     name: _sn.Typed(x, "main.T"), or, for an interface, a function
//     literal that finds which of the session's types x holds;
//   - errors.Is and errors.As become the helper package's, which the
//     interpreter runs, so that they see the session's types;
//   - a type switch becomes type assertions, which the interpreter gets
//     right for the session's types and wrapped values (its type
//     switches do not match them).
func (r *typedRewriter) names(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.CallExpr:
			if x := r.asType(n); x != nil {
				c.Replace(x)
				return true
			}
			r.namedCall(n)
		case *ast.TypeSwitchStmt:
			if _, labeled := c.Parent().(*ast.LabeledStmt); !labeled {
				if st := r.typeSwitch(n, nil); st != nil {
					c.Replace(st)
				}
			}
		case *ast.LabeledStmt:
			if ts, ok := n.Stmt.(*ast.TypeSwitchStmt); ok {
				if st := r.typeSwitch(ts, n.Label); st != nil {
					c.Replace(st)
				}
			}
		}
		return true
	})
}

// asType rewrites errors.AsType[E](err) as errors.As, which namedCall
// makes the helper's that sees the session's types:
//
//	func(e error) (E, bool) { var t E; ok := errors.As(e, &t); return t, ok }(err)
//
// The overlay's generic AsType, run by the interpreter, did not match a
// value of a type of the session's. It returns nil for any other call.
func (r *typedRewriter) asType(call *ast.CallExpr) ast.Expr {
	ix, ok := ast.Unparen(call.Fun).(*ast.IndexExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	sel, ok := ix.X.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	f, ok := r.info.Uses[sel.Sel].(*types.Func)
	if !ok || f.Pkg() == nil || f.Name() != "AsType" || f.Pkg().Path() != "errors" && !(typecheck.IsSource(f.Pkg()) && path.Base(f.Pkg().Path()) == "errors") {
		return nil
	}
	errs, err := sharedImporter().Import("errors")
	if err != nil {
		return nil
	}
	as, ok := errs.Scope().Lookup("As").(*types.Func)
	if !ok {
		return nil
	}
	et := r.typeOf(ix.Index)
	if et == nil {
		return nil
	}
	pos := call.Pos()
	elem := r.typeExpr(et, pos)
	if elem == nil {
		return nil
	}
	e, t, okID := r.temp("e", pos), r.temp("t", pos), r.temp("ok", pos)
	errType := types.Universe.Lookup("error").Type()
	eArg, addr := ident(e.Name, pos), &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: ident(t.Name, pos)}
	r.info.Types[eArg] = types.TypeAndValue{Type: errType}
	r.info.Types[addr] = types.TypeAndValue{Type: types.NewPointer(et)}
	asSel := &ast.SelectorExpr{X: copyExpr(sel.X), Sel: ident("As", pos)}
	r.info.Uses[asSel.Sel] = as
	asCall := &ast.CallExpr{Fun: asSel, Lparen: pos, Args: []ast.Expr{eArg, addr}, Rparen: pos}
	r.namedCall(asCall)
	if asCall.Fun == ast.Expr(asSel) {
		return nil // not rewritten: the overlay's AsType runs
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{e}, Type: ident("error", pos)}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: elem}, {Type: ident("bool", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{t}, Type: copyExpr(elem)}}}},
			&ast.AssignStmt{Lhs: []ast.Expr{okID}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{asCall}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(t.Name, pos), ident(okID.Name, pos)}},
		}},
	}
	arg := r.implicit(call.Args[0], errType)
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{arg}, Rparen: call.Rparen}
}

// heldByCompiled reports whether t is a compiled type that holds values
// of any type which fmt would print by their structure: an rdd.Pair
// (whose String formats its key and value), a slice of them, an []any,
// a map[K]any. The runtime's print functions convert them (laterArgs).
func heldByCompiled(t types.Type) bool {
	if t == nil {
		return false
	}
	switch u := types.Unalias(t).(type) {
	case *types.Named:
		o := u.Obj()
		return o.Pkg() != nil && o.Pkg().Path() == "github.com/sparknet-go/sparknet/rdd" && o.Name() == "Pair"
	case *types.Slice:
		return isEmptyInterface(u.Elem()) || heldByCompiled(u.Elem())
	case *types.Map:
		return isEmptyInterface(u.Elem())
	}
	return false
}

// calledFunc returns the package function call calls, or nil.
func (r *typedRewriter) calledFunc(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		id = fun.Sel
	default:
		return nil
	}
	f, _ := r.info.Uses[id].(*types.Func)
	if f == nil || f.Pkg() == nil || f.Signature().Recv() != nil {
		return nil
	}
	return f
}

// namedCall rewrites a call of fmt's formatting functions, errors.Is and
// errors.As.
// fmtArgs names the session's types in the arguments of call, from its
// first formatted one (fmtFirst), for one of the fmt shims, and reports
// whether the call needs the shim.
func (r *typedRewriter) fmtArgs(call *ast.CallExpr, first int) bool {
	if call.Ellipsis.IsValid() {
		// fmt.Println(args...): each of the slice's values as an
		// argument of its own would go.
		last := len(call.Args) - 1
		if last >= first {
			if x := r.spreadArgs(call.Args[last], call); x != nil {
				call.Args[last] = x
				return true
			}
		}
		return false
	}
	changed := false
	if x := r.goSyntaxNames(call, first); x != nil {
		call.Args[first-1] = x
		changed = true
	}
	for i := first; i < len(call.Args); i++ {
		if x := r.typedArg(call.Args[i], call); x != nil {
			call.Args[i] = x
			changed = true
		} else if heldByCompiled(r.typeOf(call.Args[i])) {
			changed = true // the shim converts what it holds (laterArgs)
		}
	}
	return changed
}

func (r *typedRewriter) namedCall(call *ast.CallExpr) {
	f := r.calledFunc(call)
	if f == nil {
		return
	}
	pos := call.Pos()
	switch f.Pkg().Path() {
	case "fmt":
		shim, ok := fmtShims[f.Name()]
		if !ok {
			return
		}
		if r.fmtArgs(call, fmtFirst[f.Name()]) {
			call.Fun = &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(shim, pos)}
		}
	case "errors":
		// The arguments of type error become error values here, as
		// implicitConversions would make them but for the helper.
		errType := types.Universe.Lookup("error").Type()
		switch {
		case f.Name() == "Is" && len(call.Args) == 2:
			call.Args[0] = r.implicit(call.Args[0], errType)
			call.Args[1] = r.implicit(call.Args[1], errType)
			call.Fun = r.helper("ErrorsIs", pos)
			call.Args = append(call.Args, r.errorMethods(pos))
		case f.Name() == "Unwrap" && len(call.Args) == 1:
			call.Args[0] = r.implicit(call.Args[0], errType)
			call.Fun = r.helper("ErrorsUnwrap", pos)
			call.Args = append(call.Args, r.errorMethods(pos))
		case f.Name() == "As" && len(call.Args) == 2:
			call.Args[0] = r.implicit(call.Args[0], errType)
			// errors.As(err, target) with target a *T becomes
			//
			//	ErrorsAs(err, target, func(e error, t any) bool {
			//		v, ok := e.(T)
			//		if ok { *t.(*T) = v }
			//		return ok
			//	})
			pt, ok := r.typeOf(call.Args[1]).(*types.Pointer)
			if !ok {
				return
			}
			if !isInterface(pt.Elem()) && !types.AssignableTo(pt.Elem(), errType) && !r.laterError(pt.Elem(), pos) {
				// Go's errors.As panics ("*target must be interface or
				// implement error"): the compiled one is left to.
				return
			}
			elem, ptr := r.typeExpr(pt.Elem(), pos), r.typeExpr(pt, pos)
			if elem == nil || ptr == nil {
				return
			}
			e, t, v := r.temp("e", pos), r.temp("t", pos), r.temp("v", pos)
			okID := ident("ok", pos)
			var assert ast.Expr = &ast.TypeAssertExpr{X: ident(e.Name, pos), Lparen: pos, Type: elem, Rparen: pos}
			if methodInterface(pt.Elem()) {
				// The interpreter's assertion of an error to an
				// interface of the session's misses the session's
				// types (interface{ Timeout() bool }): theirs are
				// tried one by one (safeAssert).
				if sa := r.safeAssert(ident(e.Name, pos), errType, pt.Elem(), pos); sa != nil {
					assert = sa
				}
			}
			match := &ast.FuncLit{
				Type: &ast.FuncType{Func: pos,
					Params: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{
						{Names: []*ast.Ident{e}, Type: ident("error", pos)},
						{Names: []*ast.Ident{t}, Type: ident("any", pos)}}},
					Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("bool", pos)}}}},
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
					&ast.AssignStmt{Lhs: []ast.Expr{v, okID}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{assert}},
					&ast.IfStmt{If: pos, Cond: ident("ok", pos), Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
						&ast.AssignStmt{Lhs: []ast.Expr{&ast.StarExpr{Star: pos, X: &ast.TypeAssertExpr{X: ident(t.Name, pos), Lparen: pos, Type: ptr, Rparen: pos}}},
							TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident(v.Name, pos)}}}}},
					&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("ok", pos)}},
				}},
			}
			call.Fun = r.helper("ErrorsAs", pos)
			call.Args = append(call.Args, match, r.errorMethods(pos))
		}
	}
}

// laterError reports whether t, a type of the session's (or a pointer to
// one) that does not implement error, may yet: in a function, which a
// later input's Error method of the type may find (errors.As(err, &he)
// in a helper typed before func (e *HTTPError) Error()).
func (r *typedRewriter) laterError(t types.Type, pos token.Pos) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && isSession(n.Obj()) && n.TypeParams().Len() == 0 && r.inFunctionPos(pos)
}

// typedArg returns x passed with the name of its type, when the
// interpreter's value of it would not carry the name, or nil. at is the
// node that uses x, for the types visible there.
func (r *typedRewriter) typedArg(x ast.Expr, at ast.Node) ast.Expr {
	defer r.converting(at)()
	t := r.typeOf(x)
	if t == nil {
		return nil
	}
	if tv := r.info.Types[x]; tv.IsNil() || tv.Value != nil && !refersToMain(t) {
		return nil
	}
	pos := x.Pos()
	if isInterface(t) {
		return r.dynamicTyped(x, t, at)
	}
	if conv := r.refElements(x, t); conv != nil {
		return conv
	}
	if conv := r.elements(x, t); conv != nil {
		return conv
	}
	if !refersToMain(t) {
		return nil
	}
	name := internalNames.ReplaceAllString(displayName(t), "$1")
	if name == "" {
		return nil
	}
	if _, ok := x.(*ast.Ident); ok {
		return r.nilMethods(r.typedCall(x, name, pos), x, t)
	}
	// func(v T) any { return _sn.TypedRaw(v, name, _sn.Raw(v)) }(x)
	tx := r.typeExpr(t, pos)
	if tx == nil {
		return r.typedCall(x, name, pos)
	}
	param := r.temp("v", pos)
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{param}, Type: tx}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{r.nilMethods(r.typedCall(ident(param.Name, pos), name, pos), ident(param.Name, pos), t)}}}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// goSyntaxNames returns, for a call of fmt's with a constant format
// that has %#v (the format at first-1, the arguments from first), the
// format passed through the runtime's GoNames with a zero value and the
// name of each of the session's struct types that the arguments' types
// hold (in fields, elements, behind pointers), or nil:
//
//	_sn.GoNames("%#v\n", P{}, "main.P", L{}, "main.L")
//
// %#v writes a struct that is not the argument itself with the type the
// interpreter builds for it (struct { X int; Y int }{X:1, Y:2}); the
// runtime then writes those types' names instead (main.P{X:1, Y:2}).
func (r *typedRewriter) goSyntaxNames(call *ast.CallExpr, first int) ast.Expr {
	if first < 1 || first > len(call.Args) {
		return nil
	}
	tv := r.info.Types[call.Args[first-1]]
	if tv.Value == nil || tv.Value.Kind() != constant.String || !strings.Contains(constant.StringVal(tv.Value), "#") {
		return nil
	}
	pos := call.Pos()
	var pairs []ast.Expr
	seen := map[*types.Named]bool{}
	var named func(t types.Type) bool
	named = func(t types.Type) bool {
		n, ok := t.(*types.Named)
		if !ok || seen[n] {
			return false
		}
		seen[n] = true
		if _, isStruct := n.Underlying().(*types.Struct); isStruct && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main" && n.TypeArgs().Len() == 0 {
			// (Not an instance of a generic type: Box[int]{} among a
			// call's arguments stopped the interpreter's statement
			// without a word.)
			name := displayName(n)
			if tx := r.typeExpr(n, pos); tx != nil && name != "" {
				pairs = append(pairs, &ast.CompositeLit{Type: tx, Lbrace: pos, Rbrace: pos},
					&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(name)})
			}
		}
		madeOfParts(n.Underlying(), named, false) // the fields' types
		return false
	}
	for _, a := range call.Args[first:] {
		if t := r.typeOf(a); t != nil {
			madeOfParts(t, named, false)
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("GoNames", pos)}, Lparen: pos,
		Args: append([]ast.Expr{call.Args[first-1]}, pairs...), Rparen: pos}
}

// spreadArgs converts x, the slice of interfaces that a call of fmt's
// spreads over its variadic parameter (fmt.Println(args...)), into a new
// slice of its values, each as ifaceElem passes an element:
//
//	func(s []any) []any {
//		r := make([]any, len(s))
//		for k := range s { r[k] = <s[k], with its type's name> }
//		return r
//	}(x)
//
// or returns nil when its values need nothing.
func (r *typedRewriter) spreadArgs(x ast.Expr, at ast.Node) ast.Expr {
	defer r.converting(at)()
	sl, ok := types.Unalias(r.typeOf(x)).(*types.Slice)
	if !ok || !isInterface(sl.Elem()) {
		return nil
	}
	tx := r.typeExpr(sl, x.Pos())
	if tx == nil {
		return nil
	}
	pos := x.Pos()
	src, res, key := r.temp("s", pos), r.temp("r", pos), r.temp("k", pos)
	elemX := &ast.IndexExpr{X: ident(src.Name, pos), Lbrack: pos, Index: ident(key.Name, pos), Rbrack: pos}
	conv := r.ifaceElem(elemX, sl.Elem())
	if conv == ast.Expr(elemX) {
		return nil
	}

	mk := &ast.CallExpr{Fun: ident("make", pos), Lparen: pos, Args: []ast.Expr{
		&ast.ArrayType{Lbrack: pos, Elt: ident("any", pos)},
		&ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{ident(src.Name, pos)}, Rparen: pos}}, Rparen: pos}
	loop := &ast.RangeStmt{For: pos, Key: key, Tok: token.DEFINE, X: ident(src.Name, pos),
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{&ast.IndexExpr{X: ident(res.Name, pos), Lbrack: pos, Index: ident(key.Name, pos), Rbrack: pos}},
				TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{conv}}}}}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{src}, Type: tx}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("any", pos)}}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{res}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{mk}},
			loop,
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(res.Name, pos)}},
		}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// converting makes at the node whose values the conversions being
// written convert, until the function it returns is called.
func (r *typedRewriter) converting(at ast.Node) func() {
	prev := r.at
	r.at = at
	return func() { r.at = prev }
}

// typedCall is _sn.Typed(x, name), or, when x can be evaluated twice
// (a variable), _sn.TypedRaw(x, name, _sn.Raw(x)), which carries the
// value without the wrapping that gives it its methods too. Where the
// interpreter would wrap the value with the wrong methods (fmtWrapping),
// x goes as fmt should see it instead.
func (r *typedRewriter) typedCall(x ast.Expr, name string, pos token.Pos) ast.Expr {
	lit := &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(name)}
	rt := func(fn string, args ...ast.Expr) ast.Expr {
		return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(fn, pos)}, Lparen: pos, Args: args, Rparen: pos}
	}
	id, isIdent := x.(*ast.Ident)
	raw := func() ast.Expr { return rt("Raw", ident(id.Name, pos)) }
	if r.raw > 0 {
		// Inside an unexported field, where fmt calls no method: the
		// value alone, which the session's converters must not give
		// its methods back (upgrade).
		return rt("TypedPlain", x, lit)
	}
	v := x
	switch w := r.fmtWrapping()[name]; {
	case w.basic != "" && w.method == "":
		// The value alone, as its underlying type.
		return rt("Typed", rt("Raw", &ast.CallExpr{Fun: ident(w.basic, pos), Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}), lit)
	case w.basic != "":
		// The method of the session's, as a value; the value as its
		// underlying type for the verbs that do not call it.
		v = rt(w.as, &ast.SelectorExpr{X: x, Sel: ident(w.method, pos)})
		raw = func() ast.Expr {
			return rt("Raw", &ast.CallExpr{Fun: ident(w.basic, pos), Lparen: pos, Args: []ast.Expr{ident(id.Name, pos)}, Rparen: pos})
		}
	case w.as == "Raw":
		return rt("Typed", rt("Raw", x), lit)
	case w.as != "":
		v = rt(w.as, x)
	}
	if isIdent {
		return rt("TypedRaw", v, lit, raw())
	}
	return rt("Typed", v, lit)
}

// fmtInterfaceMethods are the methods of fmtInterfaces, in their order,
// with the runtime's functions that pass a value as each interface, and
// those that make one of a method value.
var fmtInterfaceMethods = []struct{ method, as, of string }{
	{"Format", "AsFormatter", "FormatterOf"}, {"Error", "AsError", "ErrorOf"}, {"String", "AsStringer", "StringerOf"},
}

// fmtPass is how typedCall passes a value of one of the session's types
// to fmt (fmtWrapping): as is (the zero fmtPass); as Raw (as, without
// methods); through the runtime's function as (AsStringer: as that
// interface); or, for a type declared as a compiled named type with
// basic underlying type basic, converted to basic, with its method
// (if any: as then makes a value of the interface of it, StringerOf).
type fmtPass struct {
	as, basic, method string
}

// fmtWrapping returns, by name as typedCall gets them (main.T, *main.T),
// how to pass values of the session's types that the interpreter would
// wrap with methods fmt must not call.
//
// The interpreter gives a value passed to fmt's functions the first of
// fmtInterfaces whose methods' names its type has, counting the
// pointer's methods for a value and not comparing signatures: a type
// whose pointer alone has String, or whose Format is not fmt.Formatter's
// (a Format(layout string) string of its own, or time.Time's, promoted
// from an embedded field), failed or printed with a method Go does not
// call. And a type declared as a compiled package's named type (type D
// time.Duration) is that type to the interpreter, whose methods fmt
// found instead of the type's own, or none (1s where Go prints
// 1000000000).
func (r *typedRewriter) fmtWrapping() map[string]fmtPass {
	if r.fmtAs != nil {
		return r.fmtAs
	}
	r.fmtAs = map[string]fmtPass{}
	scope := r.c.pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || isInterface(tn.Type()) {
			continue
		}
		if n, ok := tn.Type().(*types.Named); !ok || n.TypeParams().Len() > 0 {
			continue
		}
		if r.fromCompiledBasic(tn.Type()) {
			p := fmtPass{basic: tn.Type().Underlying().(*types.Basic).Name()}
			for _, m := range fmtInterfaceMethods {
				if hasFmtMethod(tn.Type(), m.method) {
					p.as, p.method = m.of, m.method
					break
				}
			}
			r.fmtAs[displayName(tn.Type())] = p
			continue
		}
		vals, ptrs := types.NewMethodSet(tn.Type()), types.NewMethodSet(types.NewPointer(tn.Type()))
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			wrapped := ""
			for _, m := range fmtInterfaceMethods {
				if vals.Lookup(tn.Pkg(), m.method) != nil || ptrs.Lookup(tn.Pkg(), m.method) != nil {
					wrapped = m.method
					break
				}
			}
			if wrapped == "" || hasFmtMethod(t, wrapped) {
				continue
			}
			p := fmtPass{as: "Raw"}
			for _, m := range fmtInterfaceMethods {
				if hasFmtMethod(t, m.method) {
					p.as = m.as
					break
				}
			}
			r.fmtAs[displayName(t)] = p
		}
	}
	return r.fmtAs
}

// noteFromCompiled records which of the types that the top-level
// declarations of seg declare (a script's included) are declared as a
// compiled package's named type (fromCompiled).
func (s *Session) noteFromCompiled(seg *parsedInput, c *checked) {
	eachTypeSpec(seg, true, func(sp *ast.TypeSpec) {
		if sp.Assign.IsValid() || sp.TypeParams != nil {
			return
		}
		n, ok := types.Unalias(c.info.TypeOf(sp.Type)).(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg() == c.pkg {
			delete(s.fromCompiled, sp.Name.Name)
			return
		}
		if s.fromCompiled == nil {
			s.fromCompiled = map[string]bool{}
		}
		s.fromCompiled[sp.Name.Name] = true
	})
}

// hasFmtMethod reports whether values of type t have the method of
// fmt.Formatter, error or fmt.Stringer named method, with its signature.
func hasFmtMethod(t types.Type, method string) bool {
	sel := types.NewMethodSet(t).Lookup(nil, method)
	if sel == nil {
		return false
	}
	sig, ok := sel.Type().(*types.Signature)
	if !ok || sig.Variadic() {
		return false
	}
	if method != "Format" {
		return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
	}
	if sig.Params().Len() != 2 || sig.Results().Len() != 0 || !types.Identical(sig.Params().At(1).Type(), types.Typ[types.Rune]) {
		return false
	}
	n, ok := types.Unalias(sig.Params().At(0).Type()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "fmt" && n.Obj().Name() == "State"
}

func isInterface(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	default:
		_, ok := u.Underlying().(*types.Interface)
		return ok
	}
}

// dynamicTyped passes x, of interface type t, with the name of the
// session's type it holds:
//
//	func(v T) any {
//		if _, ok := v.(P); ok { return _sn.Typed(v, "main.P") }
//		if _, ok := v.(*P); ok { return _sn.Typed(v, "*main.P") }
//		...
//		return v
//	}(x)
//
// over the session's types (declared before at) that t can hold. It
// returns nil when there are none.
func (r *typedRewriter) dynamicTyped(x ast.Expr, t types.Type, at ast.Node) ast.Expr {
	return r.dynamicTypedOr(x, t, at, nil)
}

// dynamicTypedOr is dynamicTyped whose literal ends, instead of with
// return v, with the statements that last makes of v, if last is not nil;
// then it returns the literal even when no type of the session's can be
// told.
func (r *typedRewriter) dynamicTypedOr(x ast.Expr, t types.Type, at ast.Node, last func(v string) []ast.Stmt) ast.Expr {
	pos := x.Pos()
	param := r.temp("v", pos)
	body := &ast.BlockStmt{Lbrace: pos, Rbrace: pos}
	// pt: the name of the type that v's pair names (PairType), where a
	// check needs it (needPair); twins: structTwins of the types told.
	pt := r.temp("pt", pos)
	needPair := false
	var twins map[string][]string
	add := func(ct types.Type, cx ast.Expr, name string) {
		if !holds(t, ct) {
			return
		}
		// if w, ok := v.(P); ok { return <w with its name> }, or
		// any(v).(P) where P has t's methods through an embedded
		// interface (which the interpreter does not count), or t is a
		// type parameter.
		var asserted ast.Expr = ident(param.Name, pos)
		if isTypeParam(t) || promotedFromInterface(ct, t) {
			asserted = &ast.CallExpr{Fun: ident("any", pos), Lparen: pos, Args: []ast.Expr{asserted}, Rparen: pos}
		}
		w := r.temp("w", pos)
		var res ast.Expr
		if r.ifaceDepth == 0 {
			res = r.refElements(ident(w.Name, pos), ct)
		}
		if res == nil && r.needsElements(ct) {
			res = r.elements(ident(w.Name, pos), ct)
		}
		if res == nil {
			res = r.typedCall(ident(w.Name, pos), internalNames.ReplaceAllString(name, "$1"), pos)
			if _, isPtr := ct.(*types.Pointer); isPtr && wrappedInterface(t) {
				// A nil pointer in a compiled interface (see
				// nilWrapper) formats as the interface's value, whose
				// methods fmt calls: _sn.TypedRaw(_sn.NilOr(w, v), ...).
				if tc, ok := res.(*ast.CallExpr); ok && len(tc.Args) > 0 {
					tc.Args[0] = &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("NilOr", pos)}, Lparen: pos,
						Args: []ast.Expr{tc.Args[0], ident(param.Name, pos)}, Rparen: pos}
				}
			}
		}
		var test ast.Expr = &ast.TypeAssertExpr{X: asserted, Lparen: pos, Type: cx, Rparen: pos}
		if via := r.anyAssert(ident(param.Name, pos), t, ct, pos); via != nil && !isTypeParam(t) {
			test = via // an error value in an any
		}
		var check ast.Stmt = &ast.IfStmt{If: pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
				Rhs: []ast.Expr{test}},
			Cond: ident("ok", pos),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{res}}}},
		}
		if others := twins[name]; len(others) > 0 && !isTypeParam(t) {
			// if pt != "main.B" { <check> }: the assertion to A takes a
			// B of the same fields, which the pair's node tells apart.
			var cond ast.Expr
			for _, o := range others {
				ne := &ast.BinaryExpr{X: ident(pt.Name, pos), OpPos: pos, Op: token.NEQ, Y: &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(o)}}
				if cond == nil {
					cond = ne
				} else {
					cond = &ast.BinaryExpr{X: cond, OpPos: pos, Op: token.LAND, Y: ne}
				}
			}
			check = &ast.IfStmt{If: pos, Cond: cond, Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{check}}}
			needPair = true
		}
		body.List = append(body.List, check)
	}
	session := r.sessionTypes(at.Pos())
	if r.only != nil {
		session = slices.DeleteFunc(session, func(tn *types.TypeName) bool { return !r.only[tn] })
	}
	var locals []*types.TypeName
	if r.only == nil {
		locals = r.localTypes(at.Pos())
	}
	told := r.telling(append(slices.Clip(session), locals...), t)
	twins = structTwins(told)
	for _, tn := range told {
		yname := r.c.typeNameIn(tn)
		if yname == "" {
			yname = tn.Name() // a type declared in the function, in scope here
		}
		add(tn.Type(), ident(yname, pos), "main."+tn.Name())
		add(types.NewPointer(tn.Type()), &ast.StarExpr{Star: pos, X: ident(yname, pos)}, "*main."+tn.Name())
	}
	// The session's types that assertions cannot tell (type Level int,
	// whose values are ints to the interpreter's assertions), where v is
	// the interpreter's pair of a value and its type's node: the node
	// names the type (PairType), and the assertion then gives the value
	// itself. Handed on as the pair, its methods read a variable's value
	// in the wrong frame (<nil>).
	var byPair []ast.Stmt
	for _, tn := range session {
		if slices.Contains(told, tn) || !holds(t, tn.Type()) || isTypeParam(t) {
			continue
		}
		if _, isStruct := tn.Type().Underlying().(*types.Struct); isStruct {
			continue
		}
		yname := r.c.typeNameIn(tn)
		name := "main." + tn.Name()
		w := r.temp("w", pos)
		byPair = append(byPair, &ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: ident(pt.Name, pos), Op: token.EQL, OpPos: pos,
				Y: &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(name)}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.IfStmt{If: pos,
				Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
					Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(param.Name, pos), Lparen: pos, Type: ident(yname, pos), Rparen: pos}}},
				Cond: ident("ok", pos),
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
					r.typedCall(ident(w.Name, pos), name, pos)}}}}}}}})
	}
	if len(byPair) > 0 || needPair {
		// pt := _sn.PairType(v), once.
		byPair = append([]ast.Stmt{&ast.AssignStmt{Lhs: []ast.Expr{pt}, TokPos: pos, Tok: token.DEFINE,
			Rhs: []ast.Expr{&ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("PairType", pos)}, Lparen: pos,
				Args: []ast.Expr{ident(param.Name, pos)}, Rparen: pos}}}}, byPair...)
	}
	body.List = append(byPair, body.List...)
	// The instances of the session's generic types that the input
	// makes (sessionInstances), which the interpreter's values do not
	// name either, outside generic code, where it compiles the
	// assertions before it makes the instances ("type not found:
	// Stack[float64]"), by the type expressions of instanceTypes.
	if !r.inGeneric(at) && r.only == nil {
		for _, in := range r.instanceTypes(pos) {
			if in.name != "" {
				add(in.t, in.x, in.name)
			}
		}
	}
	if r.only == nil && r.raw == 0 && isInterface(t) && r.inFunction(at) {
		// A function may run after later inputs declare types of their
		// own, which it cannot assert to, or methods of the types it
		// knows: the runtime's Later asks their converters
		// (laterConverters) first, with the names of t's methods,
		// which v's type has.
		w := r.temp("w", pos)
		var need string
		if !isTypeParam(t) {
			need = methodNames(t)
		}
		asked := func(x ast.Expr) ast.Stmt {
			// if w, ok := _sn.Later(x, need); ok { return w }
			call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Later", pos)}, Lparen: pos, Rparen: pos,
				Args: []ast.Expr{x, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(need)}}}
			return &ast.IfStmt{If: pos,
				Init: &ast.AssignStmt{Lhs: []ast.Expr{w, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{call}},
				Cond: ident("ok", pos),
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(w.Name, pos)}}}},
			}
		}
		asAny := &ast.CallExpr{Fun: ident("any", pos), Lparen: pos, Args: []ast.Expr{ident(param.Name, pos)}, Rparen: pos}
		// Only where a later segment registered converters
		// (laterVar), a comparison where the call costs more:
		//	if _sn_laterSeq > seq { <asked(any(v))> }
		first := []ast.Stmt{&ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: ident(laterVar, pos), OpPos: pos, Op: token.GTR,
				Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(r.seq)}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{asked(asAny)}},
		}}
		body.List = append(first, body.List...)
	}
	if len(body.List) == 0 && last == nil {
		return nil
	}
	tx := r.typeExpr(t, pos)
	if tx == nil {
		return nil
	}
	if last == nil && !isEmptyInterface(t) && !isTypeParam(t) {
		// A nil value of an interface with methods goes as nil: the
		// interpreter's any of it, handed to compiled code, was not
		// nil there (var a Animal; fmt.Println(a) ended the input with
		// a nil dereference).
		body.List = append([]ast.Stmt{&ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: ident(param.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("nil", pos)}}}}}},
			body.List...)
	}
	if wrappedInterface(t) && len(body.List) > 0 {
		// A compiled empty struct (io.Discard) goes as it is: the
		// interpreter's assertions of it panicked (see emptyAsserts).
		asIs := []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(param.Name, pos)}}}
		if last != nil {
			asIs = last(param.Name)
		}
		body.List = append([]ast.Stmt{&ast.IfStmt{If: pos,
			Cond: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("EmptyStruct", pos)}, Lparen: pos, Args: []ast.Expr{ident(param.Name, pos)}, Rparen: pos},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: asIs}}},
			body.List...)
	}
	if last != nil {
		body.List = append(body.List, last(param.Name)...)
	} else {
		body.List = append(body.List, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(param.Name, pos)}})
	}
	return anyCall(param, tx, body, x)
}

// structTwins returns, by name as %T writes them (main.A, *main.A), the
// names of the other types of tns whose underlying struct types are
// identical, for those of tns that have such twins: the interpreter
// makes them one type, whose assertions take a value of either.
func structTwins(tns []*types.TypeName) map[string][]string {
	twins := map[string][]string{}
	for i, a := range tns {
		if _, ok := a.Type().Underlying().(*types.Struct); !ok {
			continue
		}
		for j, b := range tns {
			if i != j && types.Identical(a.Type().Underlying(), b.Type().Underlying()) {
				twins["main."+a.Name()] = append(twins["main."+a.Name()], "main."+b.Name())
				twins["*main."+a.Name()] = append(twins["*main."+a.Name()], "*main."+b.Name())
			}
		}
	}
	return twins
}

// instanceType is an instance of one of the session's generic types, or
// a pointer to one: its type, its type expression for an assertion, and
// its name as %T writes it ("" where it has none).
type instanceType struct {
	t    types.Type
	x    ast.Expr
	name string
}

// instanceTypes returns the instances that tellInstances knows, and
// pointers to them, with the type expressions that assertions at pos
// take (the interpreter gives an index list of one type no type as an
// assertion's type): an instance of one type argument written as an
// index (oneIndex); one of several, or of an instance (Pair[string, int],
// Box[Pair[string, int]]), by an alias, which instanceAliases declares
// (it takes the expression for a type argument).
func (r *typedRewriter) instanceTypes(pos token.Pos) []instanceType {
	var out []instanceType
	for _, in := range r.tellInstances() {
		n := in.t
		name := displayName(n)
		aliased := n.TypeArgs().Len() > 1 || hasInstance(n.TypeArgs().At(0))
		for _, ptr := range []bool{false, true} {
			cx := r.typeExpr(n, pos)
			if cx == nil {
				break
			}
			if aliased {
				if r.typeArgExprs == nil {
					r.typeArgExprs = map[ast.Expr]types.Type{}
				}
				r.typeArgExprs[cx] = n
			} else {
				cx = oneIndex(cx)
			}
			it := instanceType{t: n, x: cx, name: name}
			if ptr {
				it.t, it.x = types.NewPointer(n), &ast.StarExpr{Star: pos, X: cx}
				if name != "" {
					it.name = "*" + name
				}
			}
			out = append(out, it)
		}
	}
	return out
}

// anyCall is func(param tx) any { body }(x).
func anyCall(param *ast.Ident, tx ast.Expr, body *ast.BlockStmt, x ast.Expr) ast.Expr {
	pos := x.Pos()
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{param}, Type: tx}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: body,
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// promotedFromInterface reports whether ct has a method of the interface
// t only through an embedded interface (type Pet struct{ Animal }): the
// interpreter does not count such methods, and refuses an assertion of a
// t to ct as impossible (one of an any to ct it makes).
func promotedFromInterface(ct, t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range it.NumMethods() {
		m := it.Method(i)
		obj, _, _ := types.LookupFieldOrMethod(ct, true, m.Pkg(), m.Name())
		if f, ok := obj.(*types.Func); ok {
			if recv := f.Signature().Recv(); recv != nil && isInterface(recv.Type()) {
				return true
			}
		}
	}
	return false
}

// sessionTypes returns the session's types that code at pos sees: the
// earlier inputs' and those this input declared before pos, or in a
// chunk of declarations compiled before pos or with it (a type declared
// below main in a file), not generic.
func (r *typedRewriter) sessionTypes(pos token.Pos) []*types.TypeName {
	var out []*types.TypeName
	scope := r.c.pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || !isSession(tn) {
			continue
		}
		if tn.Pos() != r.s.preludePos && tn.Pos() >= pos && !r.compiledWith(tn.Pos(), pos) {
			continue // declared after pos: not compiled yet
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 || r.c.typeNameIn(tn) == "" {
			continue
		}
		out = append(out, tn)
	}
	return out
}

// localTypes returns the struct types declared in the functions around
// pos, before it, that pos sees (type point struct{...} in main): an any
// holding one of their values names the type by its structure to the
// interpreter, as it does for the session's types.
func (r *typedRewriter) localTypes(pos token.Pos) []*types.TypeName {
	var inner *types.Scope
	for _, sc := range r.info.Scopes {
		if sc.Contains(pos) && sc != r.c.pkg.Scope() && (inner == nil || inner.Contains(sc.Pos()) && sc.Pos() >= inner.Pos()) {
			inner = sc
		}
	}
	var out []*types.TypeName
	for sc := inner; sc != nil && sc != r.c.pkg.Scope() && sc != types.Universe; sc = sc.Parent() {
		for _, name := range sc.Names() {
			tn, ok := sc.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() || tn.Pos() >= pos {
				continue
			}
			if _, o := inner.LookupParent(name, pos); o != tn {
				continue // shadowed nearer pos
			}
			n, ok := tn.Type().(*types.Named)
			if !ok || n.TypeParams().Len() > 0 {
				continue
			}
			if _, isStruct := n.Underlying().(*types.Struct); !isStruct {
				continue
			}
			out = append(out, tn)
		}
	}
	return out
}

// compiledWith reports whether a declaration at a, after b, is
// compiled before code at b or with it: in a chunk of declarations
// (a whole file) that is b's chunk or one before it.
func (r *typedRewriter) compiledWith(a, b token.Pos) bool {
	ia, ib := r.fileIndex(a), r.fileIndex(b)
	return ia >= 0 && ib >= 0 && ia <= ib && r.kinds[ia] != stmtChunk
}

// fileIndex returns the index of the chunk being rewritten that holds
// pos, or -1.
func (r *typedRewriter) fileIndex(pos token.Pos) int {
	for i, f := range r.files {
		if f.Pos() <= pos && pos < f.End() {
			return i
		}
	}
	return -1
}

// typeSwitch rewrites a type switch into assertions:
//
//	switch v := x.(type) { case A: ...; case B, C: ...; default: ... }
//
// becomes
//
//	{
//		t := x
//		k := -1
//		if _, ok := t.(A); ok { k = 0 } else if _, ok := t.(B); ok { k = 1 } else ...
//		switch k { case 0: v := t.(A); ...; case 1: v := t; ...; default: v := t; ... }
//	}
//
// keeping the switch's label on the new switch, for break.
func (r *typedRewriter) typeSwitch(ts *ast.TypeSwitchStmt, label *ast.Ident) ast.Stmt {
	pos := ts.Switch
	var bound *ast.Ident
	var x ast.Expr
	switch a := ts.Assign.(type) {
	case *ast.AssignStmt:
		bound, x = a.Lhs[0].(*ast.Ident), a.Rhs[0].(*ast.TypeAssertExpr).X
	case *ast.ExprStmt:
		x = a.X.(*ast.TypeAssertExpr).X
	default:
		return nil
	}
	val, kind := r.temp("x", pos), r.temp("k", pos)
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: ts.End()}
	if ts.Init != nil {
		block.List = append(block.List, ts.Init)
	}
	block.List = append(block.List,
		&ast.AssignStmt{Lhs: []ast.Expr{val}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{x}},
		&ast.AssignStmt{Lhs: []ast.Expr{kind}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "-1"}}},
	)
	// The concrete cases of a compiled interface's value test a copy
	// that is nil where the value is an empty struct (see emptyAsserts):
	//	y := x; if _sn.EmptyStruct(x) { y = nil }
	concrete := val
	if wrappedInterface(r.typeOf(x)) {
		concrete = r.temp("y", pos)
		block.List = append(block.List,
			&ast.AssignStmt{Lhs: []ast.Expr{concrete}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{ident(val.Name, pos)}},
			&ast.IfStmt{If: pos, Cond: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("EmptyStruct", pos)}, Lparen: pos, Args: []ast.Expr{ident(val.Name, pos)}, Rparen: pos},
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
					&ast.AssignStmt{Lhs: []ast.Expr{ident(concrete.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{ident("nil", pos)}}}}})
	}
	operand := func(te ast.Expr) *ast.Ident {
		if tv, ok := r.info.Types[te]; ok && tv.IsType() && !isInterface(tv.Type) {
			return ident(concrete.Name, pos)
		}
		return ident(val.Name, pos)
	}
	var chain *ast.IfStmt // the last if of the chain
	addTest := func(cond ast.Stmt, test ast.Expr, k int) {
		set := &ast.AssignStmt{Lhs: []ast.Expr{ident(kind.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(k)}}}
		st := &ast.IfStmt{If: pos, Init: cond, Cond: test, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{set}, Rbrace: pos}}
		if chain == nil {
			block.List = append(block.List, st)
		} else {
			chain.Else = st
		}
		chain = st
	}
	sw := &ast.SwitchStmt{Switch: pos, Tag: ident(kind.Name, pos), Body: &ast.BlockStmt{Lbrace: ts.Body.Lbrace, Rbrace: ts.Body.Rbrace}}
	for k, cs := range ts.Body.List {
		cc := cs.(*ast.CaseClause)
		nc := &ast.CaseClause{Case: cc.Case, Colon: cc.Colon, Body: cc.Body}
		if cc.List != nil {
			nc.List = []ast.Expr{&ast.BasicLit{ValuePos: cc.Case, Kind: token.INT, Value: strconv.Itoa(k)}}
		}
		for _, te := range cc.List {
			if id, ok := te.(*ast.Ident); ok && id.Name == "nil" {
				if _, isNil := r.info.Uses[id].(*types.Nil); isNil {
					addTest(nil, &ast.BinaryExpr{X: ident(val.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)}, k)
					continue
				}
			}
			var test ast.Expr = &ast.TypeAssertExpr{X: operand(te), Lparen: pos, Type: te, Rparen: pos}
			if tv, ok := r.info.Types[te]; ok && tv.IsType() {
				// An interface case: nil matches none (see safeAssert);
				// an error type's value in an any (see anyAssert).
				if via := r.anyAssert(ident(val.Name, pos), r.typeOf(x), tv.Type, pos); via != nil {
					test = via
				} else if safe := r.safeAssert(ident(val.Name, pos), r.typeOf(x), tv.Type, pos); safe != nil {
					test = safe
				}
			}
			assert := &ast.AssignStmt{Lhs: []ast.Expr{ident("_", pos), ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
				Rhs: []ast.Expr{test}}
			addTest(assert, ident("ok", pos), k)
		}
		if bound != nil {
			// The variable of the clause: of the case's type when it
			// names one type, of x's type otherwise.
			var init ast.Expr = ident(val.Name, pos)
			lhs := []ast.Expr{ident(bound.Name, bound.Pos())}
			if len(cc.List) == 1 {
				if id, ok := cc.List[0].(*ast.Ident); !ok || id.Name != "nil" {
					init = &ast.TypeAssertExpr{X: operand(cc.List[0]), Lparen: pos, Type: copyTypeExpr(cc.List[0]), Rparen: pos}
					// An interface case, or an error type's: as it was tested.
					if tv, ok := r.info.Types[cc.List[0]]; ok && tv.IsType() {
						if via := r.anyAssert(ident(val.Name, pos), r.typeOf(x), tv.Type, pos); via != nil {
							init, lhs = via, append(lhs, ident("_", pos))
						} else if safe := r.safeAssert(ident(val.Name, pos), r.typeOf(x), tv.Type, pos); safe != nil {
							init, lhs = safe, append(lhs, ident("_", pos))
						}
					}
				}
			}
			decl := &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{init}}
			nc.Body = append([]ast.Stmt{decl}, cc.Body...)
		}
		sw.Body.List = append(sw.Body.List, nc)
	}
	if label != nil {
		block.List = append(block.List, &ast.LabeledStmt{Label: label, Colon: label.End(), Stmt: sw})
	} else {
		block.List = append(block.List, sw)
	}
	return block
}

// emptyAsserts guards the assertions of a value of a compiled interface
// type with methods (error, io.Writer) to a concrete type: where the
// value is a compiled empty struct (context.DeadlineExceeded,
// io.Discard, an Outer without state), the interpreter's assertion
// panicked ("reflect: Field index out of bounds"), and such a value is
// of no type the input can name:
//
//	err.(*MyErr)  →  func(v error) error { if _sn.EmptyStruct(v) { return nil }; return v }(err).(*MyErr)
//
// A failed assertion without ok then says the interface is nil. Type
// switches do the same in typeSwitch.
func (r *typedRewriter) emptyAsserts(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		ta, ok := n.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			return true
		}
		xt := r.typeOf(ta.X)
		if !wrappedInterface(xt) {
			return true
		}
		if tv, ok := r.info.Types[ta.Type]; !ok || !tv.IsType() || isInterface(tv.Type) {
			return true
		}
		pos := ta.Pos()
		it := r.typeExpr(xt, pos)
		if it == nil {
			return true
		}
		v := r.temp("v", pos)
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos,
				Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{v}, Type: it}}},
				Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: copyExpr(it)}}}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				&ast.IfStmt{If: pos, Cond: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("EmptyStruct", pos)}, Lparen: pos, Args: []ast.Expr{ident(v.Name, pos)}, Rparen: pos},
					Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("nil", pos)}}}}},
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(v.Name, pos)}},
			}},
		}
		call := &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{ta.X}, Rparen: pos}
		r.info.Types[call] = types.TypeAndValue{Type: xt}
		ta.X = call
		return true
	})
}

// copyTypeExpr returns a copy of the type expression x (a type of a case
// clause, used twice).
func copyTypeExpr(x ast.Expr) ast.Expr {
	switch x := x.(type) {
	case *ast.Ident:
		c := *x
		return &c
	case *ast.SelectorExpr:
		return &ast.SelectorExpr{X: copyTypeExpr(x.X), Sel: copyTypeExpr(x.Sel).(*ast.Ident)}
	case *ast.StarExpr:
		return &ast.StarExpr{Star: x.Star, X: copyTypeExpr(x.X)}
	case *ast.ParenExpr:
		return copyTypeExpr(x.X)
	case *ast.ArrayType:
		return &ast.ArrayType{Lbrack: x.Lbrack, Len: x.Len, Elt: copyTypeExpr(x.Elt)}
	case *ast.MapType:
		return &ast.MapType{Map: x.Map, Key: copyTypeExpr(x.Key), Value: copyTypeExpr(x.Value)}
	case *ast.IndexExpr:
		return &ast.IndexExpr{X: copyTypeExpr(x.X), Lbrack: x.Lbrack, Index: copyTypeExpr(x.Index), Rbrack: x.Rbrack}
	case *ast.IndexListExpr:
		idx := make([]ast.Expr, len(x.Indices))
		for i, e := range x.Indices {
			idx[i] = copyTypeExpr(e)
		}
		return &ast.IndexListExpr{X: copyTypeExpr(x.X), Lbrack: x.Lbrack, Indices: idx, Rbrack: x.Rbrack}
	}
	return x // function, channel, struct and interface literals: shared
}

// echo rewrites the final expression statement of an input, whose value
// the shell echoes, into a call of the runtime's Echo (EchoCall for a
// call, whose nil error result is not shown) with the value and the name
// of its type:
//
//	x      →  _sn.Echo(_sn.Typed(x, "main.T"))
//	f()    →  { var r0 A; var r1 B; r0, r1 = f(); _sn.EchoCall(r0, r1) }
//
// A call without results, and a call of a printing function, stay as
// they are.
func (r *typedRewriter) echo(body *ast.BlockStmt) {
	n := len(body.List)
	if n == 0 {
		return
	}
	es, ok := body.List[n-1].(*ast.ExprStmt)
	if !ok || isPrintCall(es.X) {
		return
	}
	x := es.X
	tv, ok := r.info.Types[x]
	if !ok || tv.IsVoid() || tv.IsType() {
		return
	}
	pos := x.Pos()
	_, isCall := ast.Unparen(x).(*ast.CallExpr)
	fn := "Echo"
	if isCall {
		fn = "EchoCall"
	}
	call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(fn, pos)}, Lparen: pos, Rparen: pos}
	tup, multi := tv.Type.(*types.Tuple)
	if !multi {
		arg := r.echoArg(x, tv.Type, es)
		call.Args = []ast.Expr{arg}
		body.List[n-1] = &ast.ExprStmt{X: call}
		return
	}
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: x.End()}
	assign := &ast.AssignStmt{TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{x}}
	for i := range tup.Len() {
		t := tup.At(i).Type()
		tx := r.typeExpr(t, pos)
		if tx == nil {
			body.List[n-1] = &ast.ExprStmt{X: &ast.CallExpr{Fun: call.Fun, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}}
			return
		}
		v := r.temp("r", pos)
		block.List = append(block.List, varDecl(v, tx))
		assign.Lhs = append(assign.Lhs, ident(v.Name, pos))
		use := ident(v.Name, pos)
		call.Args = append(call.Args, r.echoArgOf(use, t, es))
	}
	block.List = append(block.List, assign, &ast.ExprStmt{X: call})
	body.List[n-1] = block
}

// echoArg returns the echoed value x, of type t, with its type's name.
func (r *typedRewriter) echoArg(x ast.Expr, t types.Type, at ast.Node) ast.Expr {
	return r.echoArgOf(x, t, at)
}

func (r *typedRewriter) echoArgOf(x ast.Expr, t types.Type, at ast.Node) ast.Expr {
	defer r.converting(at)()
	if conv := r.elements(x, t); conv != nil {
		return conv
	}
	if isInterface(t) {
		if d := r.dynamicTyped(x, t, at); d != nil {
			return d
		}
		return x
	}
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return x
	}
	name := internalNames.ReplaceAllString(displayName(t), "$1")
	if name == "" {
		return x
	}
	return r.typedCall(x, name, x.Pos())
}

// fmtMethods reports whether values of t have a method that fmt uses:
// Error, String, Format or GoString, in t's own method set. A method
// with a pointer receiver is not one of a T's: fmt, which gets a copy of
// the value in an interface, calls it for a *T only.
func fmtMethods(t types.Type) bool {
	for _, name := range []string{"Error", "String", "Format", "GoString"} {
		if obj, _, _ := types.LookupFieldOrMethod(t, false, nil, name); obj != nil {
			if _, isFunc := obj.(*types.Func); isFunc {
				return true
			}
		}
	}
	return false
}

// needsElements reports whether t is a slice, array or map (of them)
// whose elements fmt formats with their methods, which the interpreter
// loses inside the values it passes to compiled code.
func (r *typedRewriter) needsElements(t types.Type) bool { return r.needsElementsIn(t, nil) }

// needsElementsIn is needsElements inside the named types in seen, the
// path that led to t: a type met again on its own path (a recursive type,
// type Tree struct{ Kids []Tree }) adds nothing that its first visit
// does not find, and following it would not end.
func (r *typedRewriter) needsElementsIn(t types.Type, seen []*types.Named) bool {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if slices.Contains(seen, n) {
			return false
		}
		seen = append(seen, n)
	}
	switch t.Underlying().(type) {
	case *types.Slice, *types.Array, *types.Map:
		if !fmtMethods(t) {
			break
		}
		// A slice, array or map type formatted by its own method
		// (type Path []Pt with String), or, reached through an
		// unexported field (raw), by its elements.
		return r.raw > 0
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return r.elemNeedsIn(u.Elem(), seen)
	case *types.Array:
		return r.elemNeedsIn(u.Elem(), seen)
	case *types.Map:
		return r.elemNeedsIn(u.Key(), seen) || r.elemNeedsIn(u.Elem(), seen)
	case *types.Struct:
		if fmtMethods(t) {
			// Formatted by its own method, or, reached through an
			// unexported field (raw), by its fields.
			return r.raw > 0
		}
		if _, twin := r.twinType(t); twin {
			return true // its field that marks it goes (rewrite_twins.go)
		}
		for i := range u.NumFields() {
			f := u.Field(i)
			// The interpreter's structs name unexported fields for
			// reflection with an X in front (reflection cannot make
			// them), which %+v would print.
			if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() == "main" {
				return true
			}
			if f.Exported() && r.elemNeedsIn(f.Type(), seen) {
				return true
			}
		}
	}
	return false
}

func (r *typedRewriter) elemNeeds(e types.Type) bool { return r.elemNeedsIn(e, nil) }

// elemNeedsIn reports whether an element of type e needs converting: it
// has fmt's methods, or needs its own elements converted, or it is an
// interface that can hold the session's types (the interpreter keeps
// those, inside a slice, map or struct, as values that fmt cannot read:
// []any{T{}} printed [{0xc000… {0xc000… 0xc000… 409}}]), up to
// maxIfaceDepth such interfaces deep (see ifaceElem).
func (r *typedRewriter) elemNeedsIn(e types.Type, seen []*types.Named) bool {
	if isInterface(e) {
		return r.ifaceDepth < maxIfaceDepth && r.at != nil && r.holdsSessionTypes(e)
	}
	return (r.raw == 0 && refersToMain(e) && (fmtMethods(e) || r.fromCompiledBasic(e))) || r.needsElementsIn(e, seen)
}

// fromCompiledBasic reports whether t is one of the session's types
// declared as a compiled package's named type of a basic underlying type
// (type D time.Duration), whose values the interpreter would print with
// that type's methods (see fmtWrapping).
func (r *typedRewriter) fromCompiledBasic(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Parent() != r.c.pkg.Scope() || !r.s.fromCompiled[n.Obj().Name()] {
		return false
	}
	_, basic := n.Underlying().(*types.Basic)
	return basic
}

// maxIfaceDepth is how many interfaces deep the conversions for fmt look
// for the session's types (a Pet held by an Animal in a slice, and the
// Animal the Pet embeds): each level multiplies the code by the number of
// the session's types that the interface can hold.
const maxIfaceDepth = 2

// holdsSessionTypes reports whether a value of interface type t can hold
// one of the session's types (or a pointer to one) that code at r.at
// sees.
func (r *typedRewriter) holdsSessionTypes(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	for _, tn := range r.sessionTypes(r.at.Pos()) {
		if types.AssignableTo(tn.Type(), t) || types.AssignableTo(types.NewPointer(tn.Type()), t) {
			return true
		}
	}
	return false
}

// ifaceElem converts x, an element or field of interface type t, to the
// value of the session's type it holds, with that type's name
// (dynamicTyped), or returns x. The values that the held one holds in
// turn are looked into for interfaces only up to maxIfaceDepth
// (ifaceDepth), which keeps the code from growing with every level.
//
// A value that is none of those goes through the runtime's Typed with no
// name, so that compiled code gets it as the interpreter passes values to
// compiled functions (a type with fmt's methods that assertions cannot
// tell from its underlying type, type Level int, wrapped with them), not
// as the interpreter keeps it inside a slice; a nil stays nil.
func (r *typedRewriter) ifaceElem(x ast.Expr, t types.Type) ast.Expr {
	r.ifaceDepth++
	defer func() { r.ifaceDepth-- }()
	pos := x.Pos()
	// if v == nil { return nil }  (fmt's %#v writes interface {}(nil))
	// return _sn.Typed(any(v), "")
	last := func(v string) []ast.Stmt {
		h := r.temp("h", pos)
		return []ast.Stmt{
			// if h, ok := _sn.HeldPlain(v); ok { return h }
			&ast.IfStmt{If: pos,
				Init: &ast.AssignStmt{Lhs: []ast.Expr{h, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
					Rhs: []ast.Expr{&ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("HeldPlain", pos)}, Lparen: pos, Args: []ast.Expr{ident(v, pos)}, Rparen: pos}}},
				Cond: ident("ok", pos),
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(h.Name, pos)}}}}},
			&ast.IfStmt{If: pos,
				Cond: &ast.BinaryExpr{X: ident(v, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
				Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident("nil", pos)}}}}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
				r.typedCall(&ast.CallExpr{Fun: ident("any", pos), Lparen: pos, Args: []ast.Expr{ident(v, pos)}, Rparen: pos}, "", pos)}},
		}
	}
	if d := r.dynamicTypedOr(x, t, r.at, last); d != nil {
		return d
	}
	return x
}

// elements passes a slice, array or map whose elements have fmt's
// methods as values that format themselves: the elements, each with its
// type's name, in a []any or map[any]any, itself with the name of t:
//
//	func(s S) any {
//		r := make([]any, len(s))
//		for i := range s { r[i] = _sn.Typed(s[i], "main.T") }
//		return _sn.Typed(r, "[]main.T")
//	}(x)
//
// It returns nil when t needs no such care.
//
// A named type met again inside its own conversion (a recursive type,
// type Tree struct{ Kids []Tree; V T }) is converted by a call of the
// conversion being written, which then becomes a function variable:
//
//	func() func(S) any {
//		var cv func(S) any
//		cv = func(s S) any { ... cv(s.Kids[k]) ... }
//		return cv
//	}()(x)
//
// so that the code ends and the values convert at every depth.
func (r *typedRewriter) elements(x ast.Expr, t types.Type) ast.Expr {
	if !r.needsElements(t) {
		return nil
	}
	pos := x.Pos()
	tx := r.typeExpr(t, pos)
	if tx == nil {
		return nil
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		for _, e := range r.expanding {
			if e.typ == n && e.raw == (r.raw > 0) {
				e.used = true
				return &ast.CallExpr{Fun: ident(e.fn.Name, pos), Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
			}
		}
		e := &expansion{typ: n, raw: r.raw > 0, fn: r.temp("cv", pos)}
		r.expanding = append(r.expanding, e)
		defer func() { r.expanding = r.expanding[:len(r.expanding)-1] }()
		c := r.elementsOf(x, t, tx)
		if e.used {
			c.Fun = r.recursiveLit(c.Fun.(*ast.FuncLit), e.fn, t)
		}
		return c
	}
	return r.elementsOf(x, t, tx)
}

// refElements passes x, a pointer to a struct (t) whose fields have
// fmt's methods and that has none itself, as fmt's argument (not inside
// another value, where fmt writes a pointer's address):
//
//	func(p *S) any {
//		if p == nil { return _sn.Typed(p, "*main.S") }
//		return _sn.Ref(p, <*p as elements passes it>, "*main.S")
//	}(x)
//
// so that it prints as &{...} with the fields' methods, as Go prints it.
// It returns nil for any other t.
func (r *typedRewriter) refElements(x ast.Expr, t types.Type) ast.Expr {
	pt, ok := types.Unalias(t).(*types.Pointer)
	if !ok || fmtMethods(t) {
		return nil
	}
	if _, isStruct := pt.Elem().Underlying().(*types.Struct); !isStruct || !r.needsElements(pt.Elem()) {
		return nil
	}
	pos := x.Pos()
	tx := r.typeExpr(t, pos)
	name := internalNames.ReplaceAllString(displayName(t), "$1")
	if tx == nil || name == "" {
		return nil
	}
	p := r.temp("p", pos)
	inner := r.elements(&ast.StarExpr{Star: pos, X: ident(p.Name, pos)}, pt.Elem())
	if inner == nil {
		return nil
	}
	lit := &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(name)}
	body := &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
		&ast.IfStmt{If: pos,
			Cond: &ast.BinaryExpr{X: ident(p.Name, pos), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{r.typedCall(ident(p.Name, pos), name, pos)}}}}},
		&ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Ref", pos)}, Lparen: pos,
			Args: []ast.Expr{ident(p.Name, pos), inner, lit}, Rparen: pos}}},
	}}
	return anyCall(p, tx, body, x)
}

// expansion is a named type whose conversion elements is writing, the
// function variable that holds it where it recurs, and whether it did.
type expansion struct {
	typ  *types.Named
	raw  bool // converting without methods (typedRewriter.raw)
	fn   *ast.Ident
	used bool
}

// recursiveLit returns the function literal lit, of type func(t) any, as
// the value of the variable fn that its body calls:
//
//	func() func(t) any { var fn func(t) any; fn = lit; return fn }()
func (r *typedRewriter) recursiveLit(lit *ast.FuncLit, fn *ast.Ident, t types.Type) ast.Expr {
	pos := lit.Pos()
	fnType := func() *ast.FuncType {
		return &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: r.typeExpr(t, pos)}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}}
	}
	outer := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: fnType()}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			varDecl(fn, fnType()),
			&ast.AssignStmt{Lhs: []ast.Expr{ident(fn.Name, pos)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{lit}},
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{ident(fn.Name, pos)}},
		}},
	}
	return &ast.CallExpr{Fun: outer, Lparen: pos, Rparen: pos}
}

// elementsOf writes elements' conversion of x, of type t (tx), as a call
// of a function literal.
func (r *typedRewriter) elementsOf(x ast.Expr, t types.Type, tx ast.Expr) *ast.CallExpr {
	pos := x.Pos()
	name := internalNames.ReplaceAllString(displayName(t), "$1")
	if st, ok := t.Underlying().(*types.Struct); ok {
		return r.structFields(x, tx, st, name)
	}
	src, res := r.temp("s", pos), r.temp("r", pos)
	var elem types.Type
	var loop ast.Stmt
	var mk ast.Expr
	_, isMap := t.Underlying().(*types.Map)
	key, val := r.temp("k", pos), r.temp("e", pos)
	if isMap {
		elem = t.Underlying().(*types.Map).Elem()
		mk = &ast.CallExpr{Fun: ident("make", pos), Lparen: pos, Args: []ast.Expr{
			&ast.MapType{Map: pos, Key: ident("any", pos), Value: ident("any", pos)}}, Rparen: pos}
	} else {
		if s, ok := t.Underlying().(*types.Slice); ok {
			elem = s.Elem()
		} else {
			elem = t.Underlying().(*types.Array).Elem()
		}
		mk = &ast.CallExpr{Fun: ident("make", pos), Lparen: pos, Args: []ast.Expr{
			&ast.ArrayType{Lbrack: pos, Elt: ident("any", pos)},
			&ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{ident(src.Name, pos)}, Rparen: pos}}, Rparen: pos}
	}
	// The element is taken by index, not as the range's value: the
	// interpreter would bind the methods of every element's wrapper to
	// the one variable.
	var elemX ast.Expr = &ast.IndexExpr{X: ident(src.Name, pos), Lbrack: pos, Index: ident(key.Name, pos), Rbrack: pos}
	var conv ast.Expr
	if isInterface(elem) {
		conv = r.ifaceElem(elemX, elem)
	} else {
		conv = r.freshTyped(elemX, elem)
	}
	_ = val
	var resKey ast.Expr = ident(key.Name, pos)
	if m, ok := t.Underlying().(*types.Map); ok && r.elemNeeds(m.Key()) {
		// A key with its name, in a value that fmt sorts by the key
		// itself: _sn.MapKey(k, conv(k)).
		kt := m.Key()
		if methodInterface(kt) {
			kt = types.Universe.Lookup("any").Type() // see ifaceKeyMaps
		}
		var kc ast.Expr
		if isInterface(kt) {
			kc = r.ifaceElem(ident(key.Name, pos), kt)
		} else {
			kc = r.freshTyped(ident(key.Name, pos), kt)
		}
		if id, same := kc.(*ast.Ident); !same || id.Name != key.Name {
			resKey = &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("MapKey", pos)}, Lparen: pos,
				Args: []ast.Expr{ident(key.Name, pos), kc}, Rparen: pos}
		}
	}
	loop = &ast.RangeStmt{For: pos, Key: key, Tok: token.DEFINE, X: ident(src.Name, pos),
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{&ast.IndexExpr{X: ident(res.Name, pos), Lbrack: pos, Index: resKey, Rbrack: pos}},
				TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{conv}}}}}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{src}, Type: tx}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.AssignStmt{Lhs: []ast.Expr{res}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{mk}},
			loop,
			&ast.ReturnStmt{Return: pos, Results: []ast.Expr{r.typedCall(ident(res.Name, pos), name, pos)}},
		}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// structFields passes a struct whose exported fields have fmt's methods
// as a value that formats itself as the struct would, its fields with
// their methods:
//
//	func(s S) any { return _sn.Struct("main.S", []string{"A", "b"}, []any{_sn.Typed(s.A, "main.T"), s.b}) }(x)
//
// (fmt does not call the methods of unexported fields.)
func (r *typedRewriter) structFields(x, tx ast.Expr, st *types.Struct, name string) *ast.CallExpr {
	pos := x.Pos()
	src := r.temp("s", pos)
	names := &ast.CompositeLit{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("string", pos)}, Lbrace: pos, Rbrace: pos}
	vals := &ast.CompositeLit{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("any", pos)}, Lbrace: pos, Rbrace: pos}
	// %#v of a nil interface field: its type, as reflection writes it.
	nils := &ast.CompositeLit{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("string", pos)}, Lbrace: pos, Rbrace: pos}
	for i := range st.NumFields() {
		f := st.Field(i)
		names.Elts = append(names.Elts, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(f.Name())})
		var v ast.Expr = &ast.SelectorExpr{X: ident(src.Name, pos), Sel: ident(f.Name(), pos)}
		switch {
		case f.Exported() && r.raw == 0 && r.elemNeeds(f.Type()):
			if isInterface(f.Type()) {
				v = r.ifaceElem(v, f.Type())
			} else {
				v = r.freshTyped(v, f.Type())
			}
		case (!f.Exported() || r.raw > 0) && !isInterface(f.Type()):
			// fmt calls no method of a value it reaches through an
			// unexported field, but prints the names of its fields,
			// which the interpreter's structs give with an X in front:
			// the fields alone, with no methods (raw).
			r.raw++
			v = r.freshTyped(v, f.Type())
			r.raw--
		case !f.Exported() && r.raw == 0 && isInterface(f.Type()) && !isEmptyInterface(f.Type()):
			// An unexported field of an interface type with methods
			// (note fmt.Stringer): fmt calls none of the value's
			// methods, which the interpreter's value carries.
			r.raw++
			v = r.ifaceElem(v, f.Type())
			r.raw--
		}
		vals.Elts = append(vals.Elts, v)
		nilText := ""
		if isInterface(f.Type()) {
			nilText = interfaceText(f.Type())
		}
		nils.Elts = append(nils.Elts, &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(nilText)})
	}
	call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("Struct", pos)}, Lparen: pos,
		Args: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(name)}, names, vals}, Rparen: pos}
	if slices.ContainsFunc(nils.Elts, func(e ast.Expr) bool { return e.(*ast.BasicLit).Value != `""` }) {
		call.Fun.(*ast.SelectorExpr).Sel.Name = "StructNils"
		call.Args = append(call.Args, nils)
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{src}, Type: tx}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// freshTyped passes x, of type t, with its type's name, through a
// function literal's parameter: the interpreter binds the methods of the
// value it wraps to the variable it read the value from, when they are
// called, and a parameter is a variable of its own.
func (r *typedRewriter) freshTyped(x ast.Expr, t types.Type) ast.Expr {
	if c := r.elements(x, t); c != nil {
		return c
	}
	if r.raw > 0 {
		// No methods: fmt reached it through an unexported field. A
		// named number or string goes as its underlying value, which
		// the interpreter would pass with its methods.
		if b, ok := t.Underlying().(*types.Basic); ok && t != t.Underlying() {
			return &ast.CallExpr{Fun: ident(b.Name(), x.Pos()), Lparen: x.Pos(), Args: []ast.Expr{x}, Rparen: x.Pos()}
		}
		return x
	}
	name := internalNames.ReplaceAllString(displayName(t), "$1")
	pos := x.Pos()
	tx := r.typeExpr(t, pos)
	if name == "" || tx == nil {
		return x
	}
	param := r.temp("v", pos)
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params:  &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Names: []*ast.Ident{param}, Type: tx}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{r.typedCall(ident(param.Name, pos), name, pos)}}}},
	}
	return &ast.CallExpr{Fun: lit, Lparen: pos, Args: []ast.Expr{x}, Rparen: pos}
}

// promotedMethods spells out the embedded fields that a method promoted
// from an embedded interface is reached through, which the interpreter
// does not follow (type Pet struct{ Animal }: pet.Sound() panicked with
// "invalid interface value"):
//
//	pet.Sound  →  pet.Animal.Sound
func (r *typedRewriter) promotedMethods(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		s := r.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodVal || len(s.Index()) < 2 {
			return true
		}
		m, ok := s.Obj().(*types.Func)
		if !ok || m.Signature().Recv() == nil || !isInterface(m.Signature().Recv().Type()) {
			return true
		}
		x, t := sel.X, s.Recv()
		for _, i := range s.Index()[:len(s.Index())-1] {
			if p, ok := t.Underlying().(*types.Pointer); ok {
				t = p.Elem()
			}
			st, ok := t.Underlying().(*types.Struct)
			if !ok {
				return true
			}
			field := st.Field(i)
			x = &ast.SelectorExpr{X: x, Sel: ident(field.Name(), sel.Sel.Pos())}
			t = field.Type()
		}
		sel.X = x
		return true
	})
}

// methodExprs rewrites method expressions, which the interpreter calls
// with the wrong arguments, into function literals:
//
//	T.M  →  func(r T, a A) R { return r.M(a) }
func (r *typedRewriter) methodExprs(f *ast.File) {
	astutil.Apply(f, nil, func(c *astutil.Cursor) bool {
		sel, ok := c.Node().(*ast.SelectorExpr)
		if !ok {
			return true
		}
		s := r.info.Selections[sel]
		if s == nil || s.Kind() != types.MethodExpr {
			return true
		}
		sig, ok := s.Type().(*types.Signature)
		if !ok || sig.Params().Len() == 0 {
			return true
		}
		pos := sel.Pos()
		params := &ast.FieldList{Opening: pos, Closing: pos}
		var args []ast.Expr
		var recv *ast.Ident
		for i := range sig.Params().Len() {
			t := sig.Params().At(i).Type()
			var tx ast.Expr
			if sig.Variadic() && i == sig.Params().Len()-1 {
				if et := r.typeExpr(t.(*types.Slice).Elem(), pos); et != nil {
					tx = &ast.Ellipsis{Ellipsis: pos, Elt: et}
				}
			} else {
				tx = r.typeExpr(t, pos)
			}
			if tx == nil {
				return true
			}
			p := r.temp("p", pos)
			params.List = append(params.List, &ast.Field{Names: []*ast.Ident{p}, Type: tx})
			if i == 0 {
				recv = p
			} else {
				args = append(args, ident(p.Name, pos))
			}
		}
		call := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(recv.Name, pos), Sel: ident(sel.Sel.Name, pos)}, Lparen: pos, Args: args, Rparen: pos}
		if sig.Variadic() && len(args) > 0 {
			call.Ellipsis = pos
		}
		ft := &ast.FuncType{Func: pos, Params: params}
		var body ast.Stmt = &ast.ExprStmt{X: call}
		if sig.Results().Len() > 0 {
			ft.Results = &ast.FieldList{Opening: pos, Closing: pos}
			for i := range sig.Results().Len() {
				tx := r.typeExpr(sig.Results().At(i).Type(), pos)
				if tx == nil {
					return true
				}
				ft.Results.List = append(ft.Results.List, &ast.Field{Type: tx})
			}
			body = &ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}}
		}
		c.Replace(&ast.FuncLit{Type: ft, Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{body}, Rbrace: pos}})
		return true
	})
}

// telling returns the types of cands whose values an assertion tells
// apart in an interface of type t. The interpreter's assertion to a type
// succeeds for every value of its reflect type, and a declared type
// that is not a struct has the reflect type of its underlying type: so
// such a type is left out when t can hold values of its underlying type
// (x.(A), with type A int, is true of any int in an any) or of another
// candidate of the same underlying type.
func (r *typedRewriter) telling(cands []*types.TypeName, t types.Type) []*types.TypeName {
	var out []*types.TypeName
	for i, tn := range cands {
		u := tn.Type().Underlying()
		if _, isStruct := u.(*types.Struct); isStruct {
			out = append(out, tn)
			continue
		}
		if holds(t, u) || holds(t, types.NewPointer(u)) {
			continue
		}
		alone := true
		for j, other := range cands {
			if j != i && types.Identical(other.Type().Underlying(), u) &&
				(holds(t, other.Type()) || holds(t, types.NewPointer(other.Type()))) {
				alone = false
			}
		}
		if alone {
			out = append(out, tn)
		}
	}
	return out
}

// oneIndex writes an instance of one type argument, or a pointer to one,
// as the parser does (Box[int]: an index expression): the interpreter
// gives an index list of one type no type as an assertion's type.
func oneIndex(x ast.Expr) ast.Expr {
	switch x := x.(type) {
	case *ast.StarExpr:
		return &ast.StarExpr{Star: x.Star, X: oneIndex(x.X)}
	case *ast.IndexListExpr:
		if len(x.Indices) == 1 {
			return &ast.IndexExpr{X: x.X, Lbrack: x.Lbrack, Index: x.Indices[0], Rbrack: x.Rbrack}
		}
	}
	return x
}

// holds reports whether a value of t, an interface type or a type
// parameter, can hold a value of type ct: ct is assignable to the
// interface, or satisfies the parameter's constraint.
func holds(t, ct types.Type) bool {
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		iface, ok := tp.Constraint().Underlying().(*types.Interface)
		return ok && types.Satisfies(ct, iface)
	}
	return types.AssignableTo(ct, t)
}

// isTypeParam reports whether t is a type parameter.
func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

// isEmptyInterface reports whether t is an interface type without
// methods (any).
func isEmptyInterface(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	return ok && it.NumMethods() == 0
}

// interfaceText writes the interface type t as reflection does (error,
// interface {}, main.Shape, fmt.Stringer), for %#v of a nil one.
func interfaceText(t types.Type) string {
	t = types.Unalias(t)
	if n, ok := t.(*types.Named); ok {
		if n.Obj().Pkg() == nil {
			return n.Obj().Name()
		}
		return n.Obj().Pkg().Name() + "." + n.Obj().Name()
	}
	if it, ok := t.Underlying().(*types.Interface); ok && it.Empty() {
		return "interface {}"
	}
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// nilMethods gives typed, a typedCall of v (an identifier) of type t, a
// pointer to one of the session's types whose Error or String method
// has a pointer receiver, the value that calls the method where v is
// nil: _sn.TypedRaw(_sn.StringerOf(func() string { return v.String() }), ...).
// fmt calls the method of a nil pointer (a String that prints a nil
// tree as "()"); the interpreter's nil pointer has no methods, and
// printed <nil>.
func (r *typedRewriter) nilMethods(typed, v ast.Expr, t types.Type) ast.Expr {
	call, ok := typed.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return typed
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "TypedRaw" && sel.Sel.Name != "Typed" {
		return typed
	}
	pt, ok := t.(*types.Pointer)
	if !ok {
		return typed
	}
	n, ok := types.Unalias(pt.Elem()).(*types.Named)
	if !ok || !isSession(n.Obj()) || isInterface(n) {
		return typed
	}
	for _, m := range []struct{ name, of string }{{"Error", "ErrorOf"}, {"String", "StringerOf"}} {
		obj, _, _ := types.LookupFieldOrMethod(t, false, n.Obj().Pkg(), m.name)
		fn, ok := obj.(*types.Func)
		if !ok || !hasFmtMethod(t, m.name) {
			continue
		}
		if _, ptrRecv := fn.Signature().Recv().Type().(*types.Pointer); !ptrRecv {
			return typed // a value receiver: fmt prints <nil>, as the shell does
		}
		pos := call.Pos()
		// func() string { return v.String() }: the interpreter's method
		// value, called from compiled code inside the method itself (a
		// String that prints its children), returned "".
		method := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
				Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("string", pos)}}}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{
				&ast.CallExpr{Fun: &ast.SelectorExpr{X: copyExpr(v), Sel: ident(m.name, pos)}, Lparen: pos, Rparen: pos}}}}},
		}
		of := &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident(m.of, pos)}, Lparen: pos,
			Args: []ast.Expr{method}, Rparen: pos}
		// func() any { if v == nil { return <typed, of in v's place> }; return <typed> }():
		// a value that is not nil goes as before.
		nilCall := &ast.CallExpr{Fun: call.Fun, Lparen: pos, Args: append([]ast.Expr{of}, call.Args[1:]...), Rparen: pos}
		return &ast.CallExpr{Fun: &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos},
				Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{{Type: ident("any", pos)}}}},
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				&ast.IfStmt{If: pos, Cond: &ast.BinaryExpr{X: copyExpr(v), OpPos: pos, Op: token.EQL, Y: ident("nil", pos)},
					Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ReturnStmt{Return: pos, Results: []ast.Expr{nilCall}}}}},
				&ast.ReturnStmt{Return: pos, Results: []ast.Expr{call}},
			}},
		}, Lparen: pos, Rparen: pos}
	}
	return typed
}
