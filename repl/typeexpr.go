package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
)

// A typeWriter writes go/types types as Go syntax: the session's
// declarations for the type checker, and the types that rewritten inputs
// spell out for the interpreter (the variables of a comma-ok, the
// parameters of a yield function, type arguments).
type typeWriter struct {
	// pkg returns the name under which the generated code refers to a
	// package other than the session's, importing it if need be; ok is
	// false when it cannot be referred to.
	pkg func(p *types.Package) (name string, ok bool)
	// name returns the name of a type the session declared.
	name func(tn *types.TypeName) string
	// pos is the position the generated nodes get.
	pos token.Pos
	// err is the first type that could not be written.
	err error
	// anyKeys writes a map type whose keys are of an interface type with
	// methods with keys of type any, as the interpreter's code has them
	// (see ifaceKeyMaps).
	anyKeys bool
	// args, if set, returns the type arguments to write an instance
	// with, or nil for its own (see instanceShadows).
	args func(t *types.Named) []ast.Expr
}

// errUnwritable reports a type that generated code cannot name: an
// unexported type of another package, say.
var errUnwritable = errors.New("the type cannot be written in Go")

// isSession reports whether tn is a type the session declared at its
// top level (not a type local to a function, nor a type parameter).
func isSession(tn *types.TypeName) bool {
	p := tn.Pkg()
	return p != nil && p.Path() == "main" && tn.Parent() == p.Scope()
}

// expr returns t as a type expression.
func (w *typeWriter) expr(t types.Type) ast.Expr {
	switch t := t.(type) {
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 {
			w.fail(t)
		}
		return w.ident(t.Name())
	case *types.Alias:
		if t.Obj().Pkg() == nil { // any
			return w.ident(t.Obj().Name())
		}
		return w.expr(types.Unalias(t))
	case *types.Named:
		return w.named(t)
	case *types.TypeParam:
		return w.ident(t.Obj().Name())
	case *types.Pointer:
		return &ast.StarExpr{Star: w.pos, X: w.expr(t.Elem())}
	case *types.Slice:
		return &ast.ArrayType{Lbrack: w.pos, Elt: w.expr(t.Elem())}
	case *types.Array:
		return &ast.ArrayType{Lbrack: w.pos, Len: w.intLit(t.Len()), Elt: w.expr(t.Elem())}
	case *types.Map:
		if w.anyKeys && methodInterface(t.Key()) {
			return &ast.MapType{Map: w.pos, Key: w.ident("any"), Value: w.expr(t.Elem())}
		}
		return &ast.MapType{Map: w.pos, Key: w.expr(t.Key()), Value: w.expr(t.Elem())}
	case *types.Chan:
		dir := ast.SEND | ast.RECV
		switch t.Dir() {
		case types.SendOnly:
			dir = ast.SEND
		case types.RecvOnly:
			dir = ast.RECV
		}
		return &ast.ChanType{Begin: w.pos, Arrow: w.pos, Dir: dir, Value: w.expr(t.Elem())}
	case *types.Signature:
		return w.funcType(t, nil)
	case *types.Struct:
		fields := &ast.FieldList{Opening: w.pos, Closing: w.pos}
		for i := range t.NumFields() {
			f := t.Field(i)
			if f.Pkg() != nil && !f.Exported() && f.Pkg().Path() != "main" {
				w.fail(t) // an unexported field of another package's struct
			}
			field := &ast.Field{Type: w.expr(f.Type())}
			if !f.Embedded() {
				field.Names = []*ast.Ident{w.ident(f.Name())}
			}
			if tag := t.Tag(i); tag != "" {
				field.Tag = &ast.BasicLit{ValuePos: w.pos, Kind: token.STRING, Value: strconv.Quote(tag)}
			}
			fields.List = append(fields.List, field)
		}
		return &ast.StructType{Struct: w.pos, Fields: fields}
	case *types.Interface:
		return w.iface(t)
	case *types.Union:
		var x ast.Expr
		for i := range t.Len() {
			term := t.Term(i)
			var e ast.Expr = w.expr(term.Type())
			if term.Tilde() {
				e = &ast.UnaryExpr{OpPos: w.pos, Op: token.TILDE, X: e}
			}
			if x == nil {
				x = e
			} else {
				x = &ast.BinaryExpr{X: x, OpPos: w.pos, Op: token.OR, Y: e}
			}
		}
		return x
	}
	w.fail(t)
	return w.ident("int")
}

func (w *typeWriter) fail(t types.Type) {
	if w.err == nil {
		w.err = fmt.Errorf("%w: %s", errUnwritable, t)
	}
}

func (w *typeWriter) ident(name string) *ast.Ident { return &ast.Ident{NamePos: w.pos, Name: name} }

func (w *typeWriter) intLit(n int64) *ast.BasicLit {
	return &ast.BasicLit{ValuePos: w.pos, Kind: token.INT, Value: strconv.FormatInt(n, 10)}
}

// named writes a defined type, with its type arguments.
func (w *typeWriter) named(t *types.Named) ast.Expr {
	tn := t.Obj()
	var x ast.Expr
	switch p := tn.Pkg(); {
	case p == nil: // error, comparable
		x = w.ident(tn.Name())
	case isSession(tn):
		x = w.ident(w.name(tn))
	case p.Path() == "main":
		// A type local to a function: its name, in scope where it is
		// used.
		x = w.ident(tn.Name())
	default:
		if !tn.Exported() || p.Scope().Lookup(tn.Name()) != tn {
			w.fail(t)
		}
		name, ok := w.pkg(p)
		if !ok {
			w.fail(t)
		}
		x = &ast.SelectorExpr{X: w.ident(name), Sel: w.ident(tn.Name())}
	}
	args := t.TypeArgs()
	if args.Len() == 0 {
		return x
	}
	idx := make([]ast.Expr, args.Len())
	for i := range idx {
		idx[i] = w.expr(args.At(i))
	}
	if w.args != nil {
		if a := w.args(t); a != nil {
			idx = a
		}
	}
	return &ast.IndexListExpr{X: x, Lbrack: w.pos, Indices: idx, Rbrack: w.pos}
}

// funcType writes a signature; tparams are the type parameters it
// declares (of a generic function), if any.
func (w *typeWriter) funcType(sig *types.Signature, tparams *types.TypeParamList) *ast.FuncType {
	ft := &ast.FuncType{Func: w.pos, Params: w.tuple(sig.Params(), sig.Variadic())}
	if sig.Results().Len() > 0 {
		ft.Results = w.tuple(sig.Results(), false)
	}
	if tparams != nil && tparams.Len() > 0 {
		ft.TypeParams = w.typeParams(tparams)
	}
	return ft
}

func (w *typeWriter) tuple(t *types.Tuple, variadic bool) *ast.FieldList {
	fl := &ast.FieldList{Opening: w.pos, Closing: w.pos}
	for i := range t.Len() {
		var typ ast.Expr
		if variadic && i == t.Len()-1 {
			typ = &ast.Ellipsis{Ellipsis: w.pos, Elt: w.expr(t.At(i).Type().(*types.Slice).Elem())}
		} else {
			typ = w.expr(t.At(i).Type())
		}
		fl.List = append(fl.List, &ast.Field{Type: typ})
	}
	return fl
}

func (w *typeWriter) typeParams(l *types.TypeParamList) *ast.FieldList {
	fl := &ast.FieldList{Opening: w.pos, Closing: w.pos}
	for i := range l.Len() {
		tp := l.At(i)
		var c ast.Expr
		if it, ok := tp.Constraint().(*types.Interface); ok && it.IsImplicit() {
			c = w.expr(it.EmbeddedType(0))
		} else {
			c = w.expr(tp.Constraint())
		}
		fl.List = append(fl.List, &ast.Field{Names: []*ast.Ident{w.ident(tp.Obj().Name())}, Type: c})
	}
	return fl
}

func (w *typeWriter) iface(t *types.Interface) ast.Expr {
	if t.NumExplicitMethods() == 0 && t.NumEmbeddeds() == 0 {
		return &ast.InterfaceType{Interface: w.pos, Methods: &ast.FieldList{Opening: w.pos, Closing: w.pos}}
	}
	fl := &ast.FieldList{Opening: w.pos, Closing: w.pos}
	for i := range t.NumEmbeddeds() {
		fl.List = append(fl.List, &ast.Field{Type: w.expr(t.EmbeddedType(i))})
	}
	for i := range t.NumExplicitMethods() {
		m := t.ExplicitMethod(i)
		if !m.Exported() && m.Pkg() != nil && m.Pkg().Path() != "main" {
			w.fail(t)
		}
		fl.List = append(fl.List, &ast.Field{Names: []*ast.Ident{w.ident(m.Name())}, Type: w.funcType(m.Type().(*types.Signature), nil)})
	}
	return &ast.InterfaceType{Interface: w.pos, Methods: fl}
}

// constExpr returns an expression of the value of a constant whose type
// is typ: a literal, or for a float that no literal holds exactly, the
// quotient of two integers (untyped constant arithmetic is exact).
func (w *typeWriter) constExpr(val constant.Value, typ types.Type) ast.Expr {
	switch val.Kind() {
	case constant.Bool:
		return w.ident(strconv.FormatBool(constant.BoolVal(val)))
	case constant.String:
		return &ast.BasicLit{ValuePos: w.pos, Kind: token.STRING, Value: strconv.Quote(constant.StringVal(val))}
	case constant.Int:
		if b, ok := typ.(*types.Basic); ok {
			switch b.Kind() {
			case types.UntypedRune:
				if r, ok := constant.Int64Val(val); ok && r >= 0 && r <= 0x10FFFF {
					return &ast.BasicLit{ValuePos: w.pos, Kind: token.CHAR, Value: strconv.QuoteRune(rune(r))}
				}
			case types.UntypedFloat:
				// An untyped float constant of an integer value
				// (min(1, 2.5)) stays a float: 1.0.
				return w.signed(val, token.FLOAT)
			case types.UntypedComplex:
				return w.constExpr(constant.ToComplex(val), typ)
			}
		}
		return w.signed(val, token.INT)
	case constant.Float:
		num, den := constant.Num(val), constant.Denom(val)
		x := w.signed(num, token.FLOAT)
		if constant.Compare(den, token.EQL, constant.MakeInt64(1)) {
			return x
		}
		return &ast.BinaryExpr{X: x, OpPos: w.pos, Op: token.QUO, Y: w.signed(den, token.INT)}
	case constant.Complex:
		re := w.constExpr(constant.Real(val), types.Typ[types.UntypedFloat])
		im := w.constExpr(constant.Imag(val), types.Typ[types.UntypedFloat])
		i := &ast.BasicLit{ValuePos: w.pos, Kind: token.IMAG, Value: "1i"}
		return &ast.BinaryExpr{X: re, OpPos: w.pos, Op: token.ADD, Y: &ast.BinaryExpr{X: im, OpPos: w.pos, Op: token.MUL, Y: i}}
	}
	w.err = fmt.Errorf("%w: the constant %s", errUnwritable, val)
	return w.ident("0")
}

// signed writes an integer constant; kind FLOAT makes it a float
// literal ("3.0").
func (w *typeWriter) signed(val constant.Value, kind token.Token) ast.Expr {
	neg := constant.Sign(val) < 0
	if neg {
		val = constant.UnaryOp(token.SUB, val, 0)
	}
	s := val.ExactString()
	if kind == token.FLOAT {
		s += ".0"
	}
	var x ast.Expr = &ast.BasicLit{ValuePos: w.pos, Kind: kind, Value: s}
	if neg {
		x = &ast.UnaryExpr{OpPos: w.pos, Op: token.SUB, X: x}
	}
	return x
}
