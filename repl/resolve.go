package repl

import (
	"go/ast"
	"go/token"
	"strings"
)

// The interpreter reports some undefined names badly ("constant
// definition loop" for x := undefined + 1); undefinedName finds the name
// for a better message.

var universe = map[string]bool{
	"true": true, "false": true, "nil": true, "iota": true, "any": true, "comparable": true,
	"bool": true, "string": true, "error": true, "float32": true, "float64": true,
	"complex64": true, "complex128": true,
}

// undefinedName returns the first identifier used in node that nothing
// declares: not node itself, not the session (known), not the universe.
func undefinedName(node ast.Node, known func(string) bool) *ast.Ident {
	defined := map[string]bool{}
	skip := map[*ast.Ident]bool{}
	def := func(id *ast.Ident) {
		if id != nil {
			defined[id.Name] = true
			skip[id] = true
		}
	}
	ast.Inspect(node, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						def(id)
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				def(id)
			}
		case *ast.TypeSpec:
			def(n.Name)
		case *ast.FuncDecl:
			def(n.Name)
		case *ast.Field:
			for _, id := range n.Names {
				def(id)
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				if id, ok := n.Key.(*ast.Ident); ok {
					def(id)
				}
				if id, ok := n.Value.(*ast.Ident); ok {
					def(id)
				}
			}
		case *ast.LabeledStmt:
			def(n.Label)
		case *ast.BranchStmt:
			skip[n.Label] = true
		case *ast.ImportSpec:
			def(n.Name)
		case *ast.File:
			skip[n.Name] = true // the package clause's
		case *ast.SelectorExpr:
			skip[n.Sel] = true
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				skip[id] = true // most likely a field name
			}
		}
		return true
	})
	var found *ast.Ident
	ast.Inspect(node, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found != nil || skip[id] || id.Name == "_" {
			return found == nil
		}
		name := id.Name
		if defined[name] || universe[name] || builtinFuncs[name] || intTypes[name] || strings.HasPrefix(name, rtName) || known(name) {
			return true
		}
		found = id
		return false
	})
	return found
}
