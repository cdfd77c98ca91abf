package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
)

// The shell's errors.Is, errors.As and errors.Unwrap (the helper
// package's) walk an error's tree through Unwrap, Is and As methods. The
// session's error types have theirs in the interpreter only: a compiled
// call, or an assertion to interface{ Unwrap() error } of a value that
// the interpreter wraps, does not see them. errorMethods writes, for the
// session's error types visible at pos that have such methods, the
// function the helpers call for them:
//
//	func(e error, target any, op int) ([]error, bool) {
//		if v, ok := e.(T); ok {
//			switch op {
//			case 0: return []error{v.Unwrap()}, true  // (or v.Unwrap(), for []error)
//			case 1: return nil, v.Is(target.(error))
//			case 2: return nil, v.As(target)
//			}
//			return nil, false
//		}
//		...
//		return nil, false
//	}
//
// (op 0 unwraps, 1 calls Is, 2 calls As, 3 calls Unwrap() error only,
// for errors.Unwrap; the cases T lacks are left out), or nil when there
// are none.
func (r *typedRewriter) errorMethods(pos token.Pos) ast.Expr {
	return r.errorMethodsOf(pos, false)
}

// errorMethodsOf is errorMethods; with anyErr, the function takes the
// error as an any (the runtime's LaterErr hands it the value the
// interpreter's wrapper holds). In a function, which may run after
// later inputs declare error types or their methods, it ends asking the
// runtime's LaterErr for their functions (laterConverters), where it
// would return nil, false:
//
//	return _sn.LaterErr(e, target, op, seq)
func (r *typedRewriter) errorMethodsOf(pos token.Pos, anyErr bool) ast.Expr {
	errType := types.Universe.Lookup("error").Type()
	errsType := types.NewSlice(errType)
	has := func(ct types.Type, name string, params, results []types.Type) bool {
		obj, _, _ := types.LookupFieldOrMethod(ct, false, nil, name)
		m, ok := obj.(*types.Func)
		if !ok {
			return false
		}
		sig := m.Signature()
		if sig.Params().Len() != len(params) || sig.Results().Len() != len(results) || sig.Variadic() {
			return false
		}
		for i, p := range params {
			if !types.Identical(sig.Params().At(i).Type(), p) {
				return false
			}
		}
		for i, p := range results {
			if !types.Identical(sig.Results().At(i).Type(), p) {
				return false
			}
		}
		return true
	}
	boolType := types.Typ[types.Bool]
	anyType := types.Universe.Lookup("any").Type()
	e, target, op := r.temp("e", pos), r.temp("target", pos), r.temp("op", pos)
	ret := func(list, ok ast.Expr) ast.Stmt { return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{list, ok}} }
	call := func(recv, name string, args ...ast.Expr) ast.Expr {
		return &ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(recv, pos), Sel: ident(name, pos)}, Lparen: pos, Args: args, Rparen: pos}
	}
	var body []ast.Stmt
	session := r.sessionTypes(pos)
	if r.only != nil {
		session = slices.DeleteFunc(session, func(tn *types.TypeName) bool { return !r.only[tn] })
	}
	for ct, cx := range r.typesAndPointers(session, pos) {
		if !types.AssignableTo(ct, errType) {
			continue
		}
		v := r.temp("v", pos)
		var cases []ast.Stmt
		addCase := func(k int, res ast.Stmt) {
			cases = append(cases, &ast.CaseClause{Case: pos, Colon: pos,
				List: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(k)}}, Body: []ast.Stmt{res}})
		}
		switch {
		case has(ct, "Unwrap", nil, []types.Type{errType}):
			one := ret(&ast.CompositeLit{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("error", pos)}, Lbrace: pos,
				Elts: []ast.Expr{call(v.Name, "Unwrap")}, Rbrace: pos}, ident("true", pos))
			addCase(0, one)
			addCase(3, one)
		case has(ct, "Unwrap", nil, []types.Type{errsType}):
			addCase(0, ret(call(v.Name, "Unwrap"), ident("true", pos)))
		}
		if has(ct, "Is", []types.Type{errType}, []types.Type{boolType}) {
			addCase(1, ret(ident("nil", pos), call(v.Name, "Is",
				&ast.TypeAssertExpr{X: ident(target.Name, pos), Lparen: pos, Type: ident("error", pos), Rparen: pos})))
		}
		if has(ct, "As", []types.Type{anyType}, []types.Type{boolType}) {
			addCase(2, ret(ident("nil", pos), call(v.Name, "As", ident(target.Name, pos))))
		}
		if len(cases) == 0 {
			continue
		}
		body = append(body, &ast.IfStmt{If: pos,
			Init: &ast.AssignStmt{Lhs: []ast.Expr{v, ident("ok", pos)}, TokPos: pos, Tok: token.DEFINE,
				Rhs: []ast.Expr{&ast.TypeAssertExpr{X: ident(e.Name, pos), Lparen: pos, Type: cx, Rparen: pos}}},
			Cond: ident("ok", pos),
			Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
				&ast.SwitchStmt{Switch: pos, Tag: ident(op.Name, pos), Body: &ast.BlockStmt{Lbrace: pos, List: cases, Rbrace: pos}},
				ret(ident("nil", pos), ident("false", pos)),
			}},
		})
	}
	later := r.only == nil && r.inFunctionPos(pos)
	if len(body) == 0 && !later {
		return ident("nil", pos)
	}
	if later {
		body = append(body, &ast.ReturnStmt{Return: pos, Results: []ast.Expr{&ast.CallExpr{
			Fun: &ast.SelectorExpr{X: ident(rtName, pos), Sel: ident("LaterErr", pos)}, Lparen: pos, Rparen: pos,
			Args: []ast.Expr{ident(e.Name, pos), ident(target.Name, pos), ident(op.Name, pos),
				&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(r.seq)}}}}})
	} else {
		body = append(body, ret(ident("nil", pos), ident("false", pos)))
	}
	errParam := "error"
	if anyErr {
		errParam = "any"
	}
	return &ast.FuncLit{
		Type: &ast.FuncType{Func: pos,
			Params: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{
				{Names: []*ast.Ident{e}, Type: ident(errParam, pos)},
				{Names: []*ast.Ident{target}, Type: ident("any", pos)},
				{Names: []*ast.Ident{op}, Type: ident("int", pos)}}},
			Results: &ast.FieldList{Opening: pos, Closing: pos, List: []*ast.Field{
				{Type: &ast.ArrayType{Lbrack: pos, Elt: ident("error", pos)}}, {Type: ident("bool", pos)}}}},
		Body: &ast.BlockStmt{Lbrace: pos, List: body, Rbrace: pos},
	}
}
