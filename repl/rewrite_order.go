package repl

import "go/ast"

// genericMethodOrder reorders the methods of each generic type declared
// in f so that a method comes after the methods of its type that it
// calls: the interpreter compiles an instance's methods in the order of
// their declarations, and a call of one declared further down failed
// ("undefined selector", or at run time an index out of range), where Go
// takes the declarations in any order. The methods keep the places that
// the type's methods had among f's declarations, and methods that call
// each other in a cycle keep their order.
func (r *typedRewriter) genericMethodOrder(f *ast.File) {
	byType := map[string][]int{} // a generic type's methods, by index in f.Decls
	var types []string
	for i, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil {
			continue
		}
		name, generic := genericRecv(fd.Recv.List[0].Type)
		if !generic {
			continue
		}
		if _, seen := byType[name]; !seen {
			types = append(types, name)
		}
		byType[name] = append(byType[name], i)
	}
	for _, name := range types {
		idx := byType[name]
		if len(idx) < 2 {
			continue
		}
		decls := make([]*ast.FuncDecl, len(idx))
		methods := map[string]int{}
		for k, i := range idx {
			decls[k] = f.Decls[i].(*ast.FuncDecl)
			methods[decls[k].Name.Name] = k
		}
		calls := make([][]int, len(decls))
		for k, fd := range decls {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if j, ok := methods[sel.Sel.Name]; ok && j != k {
						calls[k] = append(calls[k], j)
					}
				}
				return true
			})
		}
		order := calleesFirst(calls)
		if order == nil {
			continue
		}
		for k, i := range idx {
			f.Decls[i] = decls[order[k]]
		}
	}
}

// genericRecv returns the name of the type of a method's receiver
// (T[P], *T[P]) and whether it is generic.
func genericRecv(x ast.Expr) (string, bool) {
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	var base ast.Expr
	switch x := x.(type) {
	case *ast.IndexExpr:
		base = x.X
	case *ast.IndexListExpr:
		base = x.X
	default:
		return "", false
	}
	id, ok := base.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// calleesFirst orders the nodes 0..len(calls)-1 so that each comes after
// those it calls (calls[k]), the earliest first where several may come
// next, and returns nil where calls make a cycle.
func calleesFirst(calls [][]int) []int {
	placed := make([]bool, len(calls))
	var order []int
	for len(order) < len(calls) {
		next := -1
		for k := range calls {
			if placed[k] {
				continue
			}
			ready := true
			for _, j := range calls[k] {
				if !placed[j] {
					ready = false
					break
				}
			}
			if ready {
				next = k
				break
			}
		}
		if next < 0 {
			return nil
		}
		placed[next] = true
		order = append(order, next)
	}
	return order
}
