package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// The interpreter compiles a method of an instance of a generic type
// once for every method name and list of type arguments: it keeps the
// compiled method under "Len[int]", whatever the type. A second generic
// type with a method of the same name, instantiated with the same type
// arguments (Stack[int].Len, then Queue[int].Len), gets the first type's
// method: a call ran the wrong body, or panicked ("reflect.Set: value of
// type *struct {...} is not assignable"); so did a generic type's
// override of a method of a generic type it embeds (SortedBox[T] and
// SliceBox[T], both with Add).
//
// The shell gives such an instance type arguments of its own: a type
// declared for it with the argument's underlying type (type _sn_sh1 int,
// Queue[_sn_sh1]), which the interpreter tells apart in those keys, and
// which it otherwise treats as the argument (it assigns an _sn_sh1 to an
// int, asserts one from an any as an int). Values, printing (the shell
// names types as the checker sees them) and the code's types are
// unchanged. The first generic type to use a key keeps it for the
// session; a later instance that would share it is shadowed, in every
// type the rewritten input writes (typeExpr), in its spelled-out type
// expressions, and in the type arguments of the generic functions whose
// signatures make it (NewQueue[int] becomes NewQueue[_sn_sh1]). An
// argument whose type has methods, or that the type parameter's
// constraint would not take as a declared type, is left as it is, and so
// is an instance of a type that embeds an instance (embedsInstance).

// instanceShadows is the session's record of the interpreter's method
// keys and of the shadowed instances.
type instanceShadows struct {
	// claims maps a key ("Len[int]") to the generic type whose method
	// holds it.
	claims map[string]*types.TypeName
	// args maps a shadowed instance (its types.TypeString) to the names
	// of its shadow type arguments, "" for an argument kept.
	args map[string][]string
	n    int
	// pending are the declarations of the shadow types that the chunk
	// being rewritten made, which declareShadows compiles before it.
	pending []ast.Decl
}

// declareShadows compiles the declarations of the shadow types of the
// chunk just rewritten, ahead of it: declared in the chunk, the
// interpreter took them for a loop (s, q := NewStack[int](),
// NewQueue[_sn_sh1]() at the top level: "constant definition loop").
func (s *Session) declareShadows() error {
	decls := s.shadows.pending
	s.shadows.pending = nil
	if len(decls) == 0 {
		return nil
	}
	f := &ast.File{Package: decls[0].Pos(), Name: ident("main", decls[0].Pos()), Decls: decls}
	prog, err := s.compile(f, nil)
	if err != nil {
		return err
	}
	_, err = s.in.Execute(prog)
	return err
}

// planShadows claims the method keys of the instances that the chunk
// uses, in the order of the chunk, and shadows those whose keys another
// generic type holds, their shadow types to be declared (pending).
func (r *typedRewriter) planShadows() {
	sh := &r.s.shadows
	if sh.claims == nil {
		sh.claims, sh.args = map[string]*types.TypeName{}, map[string][]string{}
	}
	for _, in := range r.sessInst {
		n := in.t
		key := types.TypeString(n, nil)
		if _, done := sh.args[key]; done {
			continue
		}
		origin := n.Origin()
		keys := methodKeys(n)
		taken := false
		for _, k := range keys {
			if tn, ok := sh.claims[k]; ok && tn != origin.Obj() {
				taken = true
			}
		}
		if !taken || embedsInstance(origin) {
			for _, k := range keys {
				if _, ok := sh.claims[k]; !ok {
					sh.claims[k] = origin.Obj()
				}
			}
			continue
		}
		names := make([]string, n.TypeArgs().Len())
		shadowed := false
		for i := range names {
			arg := n.TypeArgs().At(i)
			if !shadowable(arg, origin.TypeParams().At(i)) {
				continue
			}
			under := r.typeExpr(arg.Underlying(), in.pos)
			if under == nil {
				continue
			}
			sh.n++
			names[i] = rtName + "_sh" + strconv.Itoa(sh.n)
			shadowed = true
			sh.pending = append(sh.pending, &ast.GenDecl{TokPos: in.pos, Tok: token.TYPE, Specs: []ast.Spec{
				&ast.TypeSpec{Name: ident(names[i], in.pos), Type: under}}})
		}
		if shadowed {
			sh.args[key] = names
		}
	}
}

// embedsInstance reports whether generic type g embeds an instance of a
// generic type: shadowing g's instance would make the embedded type's
// instance with the same shadows, whose methods take the keys first.
func embedsInstance(g *types.Named) bool {
	st, ok := g.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for f := range st.Fields() {
		t := f.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); f.Embedded() && ok && n.TypeArgs().Len() > 0 {
			return true
		}
	}
	return false
}

// methodKeys returns the interpreter's keys of the methods of instance n:
// each method's name with n's type arguments.
func methodKeys(n *types.Named) []string {
	var args []string
	for a := range n.TypeArgs().Types() {
		args = append(args, types.TypeString(a, nil))
	}
	suffix := "[" + strings.Join(args, ",") + "]"
	origin := n.Origin()
	keys := make([]string, origin.NumMethods())
	for i := range keys {
		keys[i] = origin.Method(i).Name() + suffix
	}
	return keys
}

// shadowable reports whether a declared type with arg's underlying type
// can stand for arg as the type argument of tp: arg is of a basic type,
// has no methods, and the constraint takes the declared type.
func shadowable(arg types.Type, tp *types.TypeParam) bool {
	if _, ok := arg.Underlying().(*types.Basic); !ok || types.NewMethodSet(types.NewPointer(arg)).Len() > 0 {
		return false
	}
	obj := types.NewTypeName(token.NoPos, nil, "shadow", nil)
	shadow := types.NewNamed(obj, arg.Underlying(), nil)
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	return ok && types.Satisfies(shadow, iface)
}

// shadowArgs returns the type arguments that instance t is written with,
// its shadows in place of those it has (nil: t is not shadowed).
func (r *typedRewriter) shadowArgs(t *types.Named, pos token.Pos) []ast.Expr {
	names, ok := r.s.shadows.args[types.TypeString(t, nil)]
	if !ok {
		return nil
	}
	out := make([]ast.Expr, len(names))
	for i, name := range names {
		if name != "" {
			out[i] = ident(name, pos)
		} else if out[i] = r.typeExpr(t.TypeArgs().At(i), pos); out[i] == nil {
			return nil
		}
	}
	return out
}

// funcShadowArgs returns the type arguments of a use of a generic
// function (inst) with the shadows of a shadowed instance that its
// signature makes in place of the arguments they shadow, or nil.
func (r *typedRewriter) funcShadowArgs(inst *types.Instance, pos token.Pos) []ast.Expr {
	if len(r.s.shadows.args) == 0 {
		return nil
	}
	var shadowed *types.Named
	madeOf(inst.Type, func(t types.Type) bool {
		if n, ok := t.(*types.Named); ok && n.TypeArgs().Len() > 0 {
			if _, ok := r.s.shadows.args[types.TypeString(n, nil)]; ok {
				shadowed = n
				return true
			}
		}
		return false
	})
	if shadowed == nil {
		return nil
	}
	names := r.s.shadows.args[types.TypeString(shadowed, nil)]
	out := make([]ast.Expr, inst.TypeArgs.Len())
	for i := range out {
		a := inst.TypeArgs.At(i)
		for j, name := range names {
			if name != "" && types.Identical(a, shadowed.TypeArgs().At(j)) {
				out[i] = ident(name, pos)
				break
			}
		}
		if out[i] == nil {
			if out[i] = r.typeExpr(a, pos); out[i] == nil {
				return nil
			}
		}
	}
	return out
}

// shadowTypes writes the shadowed instances that the chunk spells out
// with their shadow type arguments, and the generic functions whose
// signatures make one with theirs (funcShadowArgs), in place: before the
// other rewrites, which read the types of the expressions and copy them
// (a type switch's case types). Calls whose type arguments are inferred
// get theirs from typeArgs.
func (r *typedRewriter) shadowTypes(f *ast.File) {
	if len(r.s.shadows.args) == 0 {
		return
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var x ast.Expr
		var pos token.Pos
		switch n := n.(type) {
		case *ast.IndexExpr:
			x, pos = n.X, n.Lbrack
		case *ast.IndexListExpr:
			x, pos = n.X, n.Lbrack
		default:
			return true
		}
		var args []ast.Expr
		if tv, ok := r.info.Types[n.(ast.Expr)]; ok && tv.IsType() {
			if t, ok := types.Unalias(tv.Type).(*types.Named); ok {
				args = r.shadowArgs(t, pos)
			}
		} else if _, inst := r.genericFunc(x); inst != nil {
			args = r.funcShadowArgs(inst, pos)
		}
		switch n := n.(type) {
		case *ast.IndexExpr:
			if len(args) == 1 {
				n.Index = args[0]
			}
		case *ast.IndexListExpr:
			if len(args) == len(n.Indices) {
				n.Indices = args
			}
		}
		return true
	})
}
