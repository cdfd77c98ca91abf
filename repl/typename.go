package repl

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// The interpreter's values of the session's types are values of
// unnamed types for reflection (reflection cannot make named types), so
// compiled code such as fmt's %T, or the shell's echo, would name them
// by their structure: struct { S string } instead of main.T. Where the
// checker knows a value's type, rewritten inputs pass its name along
// (see rewriteNames); where it knows only an interface, a function of
// the session's own (typeNameFunc) finds the type among the session's.

// displayName names t as Go's reflection (and so fmt's %T) names it:
// main.T for a type of the session, pkg.T for another package's,
// struct { X int } for a literal. It returns "" for a type that a
// value cannot have (an interface, a type parameter).
func displayName(t types.Type) string {
	var b strings.Builder
	if !writeDisplay(&b, t, true) {
		return ""
	}
	return b.String()
}

// writeDisplay writes t as reflection would; top says whether t is the
// dynamic type itself, which cannot be an interface or a type parameter.
func writeDisplay(b *strings.Builder, t types.Type, top bool) bool {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind() {
		case types.Uint8:
			b.WriteString("uint8")
		case types.Int32:
			b.WriteString("int32")
		case types.UntypedBool:
			b.WriteString("bool")
		case types.UntypedInt:
			b.WriteString("int")
		case types.UntypedRune:
			b.WriteString("int32")
		case types.UntypedFloat:
			b.WriteString("float64")
		case types.UntypedComplex:
			b.WriteString("complex128")
		case types.UntypedString:
			b.WriteString("string")
		case types.UntypedNil, types.Invalid:
			return false
		default:
			b.WriteString(t.Name())
		}
	case *types.Alias:
		return writeDisplay(b, types.Unalias(t), top)
	case *types.Named:
		tn := t.Obj()
		if _, isIface := t.Underlying().(*types.Interface); isIface && top {
			return false
		}
		switch {
		case tn.Pkg() == nil: // error
			b.WriteString(tn.Name())
		case tn.Pkg().Path() == "main":
			b.WriteString("main." + tn.Name())
		default:
			b.WriteString(tn.Pkg().Name() + "." + tn.Name())
		}
		if args := t.TypeArgs(); args.Len() > 0 {
			b.WriteByte('[')
			for i := range args.Len() {
				if i > 0 {
					b.WriteByte(',')
				}
				if !writeDisplay(b, args.At(i), false) {
					return false
				}
			}
			b.WriteByte(']')
		}
	case *types.TypeParam:
		return false
	case *types.Pointer:
		b.WriteByte('*')
		return writeDisplay(b, t.Elem(), false)
	case *types.Slice:
		b.WriteString("[]")
		return writeDisplay(b, t.Elem(), false)
	case *types.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		return writeDisplay(b, t.Elem(), false)
	case *types.Map:
		b.WriteString("map[")
		if !writeDisplay(b, t.Key(), false) {
			return false
		}
		b.WriteByte(']')
		return writeDisplay(b, t.Elem(), false)
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		default:
			b.WriteString("chan ")
		}
		return writeDisplay(b, t.Elem(), false)
	case *types.Signature:
		b.WriteString("func(")
		for i := range t.Params().Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			pt := t.Params().At(i).Type()
			if t.Variadic() && i == t.Params().Len()-1 {
				b.WriteString("...")
				pt = pt.(*types.Slice).Elem()
			}
			if !writeDisplay(b, pt, false) {
				return false
			}
		}
		b.WriteByte(')')
		switch n := t.Results().Len(); n {
		case 0:
		case 1:
			b.WriteByte(' ')
			return writeDisplay(b, t.Results().At(0).Type(), false)
		default:
			b.WriteString(" (")
			for i := range n {
				if i > 0 {
					b.WriteString(", ")
				}
				if !writeDisplay(b, t.Results().At(i).Type(), false) {
					return false
				}
			}
			b.WriteByte(')')
		}
	case *types.Struct:
		if t.NumFields() == 0 {
			b.WriteString("struct {}")
			return true
		}
		b.WriteString("struct { ")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString("; ")
			}
			f := t.Field(i)
			if !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			if !writeDisplay(b, f.Type(), false) {
				return false
			}
			if tag := t.Tag(i); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		b.WriteString(" }")
	case *types.Interface:
		if top {
			return false
		}
		if t.NumMethods() == 0 {
			b.WriteString("interface {}")
			return true
		}
		b.WriteString("interface { ")
		for i := range t.NumMethods() {
			if i > 0 {
				b.WriteString("; ")
			}
			m := t.Method(i)
			var sig strings.Builder
			if !writeDisplay(&sig, m.Type(), false) {
				return false
			}
			b.WriteString(m.Name() + strings.TrimPrefix(sig.String(), "func"))
		}
		b.WriteString(" }")
	default:
		return false
	}
	return true
}
