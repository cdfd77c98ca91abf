package typecheck

import (
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strings"
)

// The interpreter knows compiled packages only through their symbol
// tables: maps from names to reflect.Values (a function, a pointer to a
// variable, a nil pointer of a type, a constant). This file turns those
// into go/types objects, so that inputs are checked against exactly the
// API the interpreter can call.
//
// What reflect cannot tell is approximated:
//   - parameter names are left out (go/types does not show them in its
//     messages);
//   - uint8 is shown as byte, as nearly all the APIs spell it;
//   - untyped constants are stored as constant.Values and keep their
//     kind, except that an untyped rune is an untyped int;
//   - unexported fields of a struct that are not embedded are replaced
//     by one blank field, comparable when they all are, so that the
//     private type graph behind a package is not built;
//   - a method that one embedded field brings, with the same parameters
//     and results, is left to go/types' promotion; any other method is
//     declared on the type (it may hide a field's method of that name).

// fromReflect converts reflect types into go/types types, creating a
// package for every package path it meets. It is not safe for concurrent
// use (the Importer serializes it).
type fromReflect struct {
	imp   *Importer
	types map[reflect.Type]types.Type
}

var (
	errorType    = reflect.TypeFor[error]()
	anyType      = reflect.TypeFor[any]()
	constantType = reflect.TypeFor[constant.Value]()
)

// typ returns the go/types type of t.
func (c *fromReflect) typ(t reflect.Type) types.Type {
	if tt, ok := c.types[t]; ok {
		return tt
	}
	var tt types.Type
	switch {
	case t == errorType:
		tt = types.Universe.Lookup("error").Type()
	case t == anyType:
		tt = types.Universe.Lookup("any").Type()
	case t.Name() != "" && t.PkgPath() != "":
		tt = c.named(t)
	case t.Name() != "":
		tt = basic(t.Kind())
	default:
		tt = c.structure(t, nil)
	}
	c.types[t] = tt
	return tt
}

// basic returns the predeclared type of kind k.
func basic(k reflect.Kind) types.Type {
	switch k {
	case reflect.Bool:
		return types.Typ[types.Bool]
	case reflect.Int:
		return types.Typ[types.Int]
	case reflect.Int8:
		return types.Typ[types.Int8]
	case reflect.Int16:
		return types.Typ[types.Int16]
	case reflect.Int32:
		return types.Typ[types.Int32]
	case reflect.Int64:
		return types.Typ[types.Int64]
	case reflect.Uint:
		return types.Typ[types.Uint]
	case reflect.Uint8:
		return types.Universe.Lookup("byte").Type()
	case reflect.Uint16:
		return types.Typ[types.Uint16]
	case reflect.Uint32:
		return types.Typ[types.Uint32]
	case reflect.Uint64:
		return types.Typ[types.Uint64]
	case reflect.Uintptr:
		return types.Typ[types.Uintptr]
	case reflect.Float32:
		return types.Typ[types.Float32]
	case reflect.Float64:
		return types.Typ[types.Float64]
	case reflect.Complex64:
		return types.Typ[types.Complex64]
	case reflect.Complex128:
		return types.Typ[types.Complex128]
	case reflect.String:
		return types.Typ[types.String]
	case reflect.UnsafePointer:
		return types.Typ[types.UnsafePointer]
	}
	return types.Typ[types.Invalid]
}

// structure returns the type literal that t (named or not) is made of.
// owner is the named type t belongs to, if any: the package of its
// unexported fields and methods.
func (c *fromReflect) structure(t reflect.Type, owner *types.Package) types.Type {
	switch t.Kind() {
	case reflect.Pointer:
		return types.NewPointer(c.typ(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(c.typ(t.Elem()))
	case reflect.Array:
		return types.NewArray(c.typ(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(c.typ(t.Key()), c.typ(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, c.typ(t.Elem()))
	case reflect.Func:
		return c.signature(t, nil, 0)
	case reflect.Struct:
		return c.structType(t, owner)
	case reflect.Interface:
		return c.interfaceType(t)
	}
	return basic(t.Kind())
}

// signature converts the function type t, whose first skip parameters
// are left out (a method's receiver), giving it the receiver recv.
func (c *fromReflect) signature(t reflect.Type, recv *types.Var, skip int) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", c.typ(t.In(i))))
	}
	for i := range t.NumOut() {
		results = append(results, types.NewParam(token.NoPos, nil, "", c.typ(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}

func (c *fromReflect) structType(t reflect.Type, owner *types.Package) *types.Struct {
	var fields []*types.Var
	var tags []string
	hidden, comparable := false, true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			hidden = true
			comparable = comparable && f.Type.Comparable()
			continue
		}
		pkg := owner
		if f.PkgPath != "" {
			pkg = c.imp.pkg(f.PkgPath, "")
		}
		fields = append(fields, types.NewField(token.NoPos, pkg, f.Name, c.typ(f.Type), f.Anonymous))
		tags = append(tags, string(f.Tag))
	}
	if hidden {
		// One blank field stands for the unexported ones; a [0]func()
		// keeps the struct from being comparable when one of them is not.
		var ft types.Type = types.NewArray(types.Typ[types.Int], 0)
		if !comparable {
			ft = types.NewArray(types.NewSignatureType(nil, nil, nil, nil, nil, false), 0)
		}
		fields = append(fields, types.NewField(token.NoPos, owner, "_", ft, false))
		tags = append(tags, "")
	}
	return types.NewStruct(fields, tags)
}

func (c *fromReflect) interfaceType(t reflect.Type) types.Type {
	if t.NumMethod() == 0 {
		return types.Universe.Lookup("any").Type()
	}
	var methods []*types.Func
	for i := range t.NumMethod() {
		m := t.Method(i)
		var pkg *types.Package
		if m.PkgPath != "" {
			pkg = c.imp.pkg(m.PkgPath, "")
		}
		methods = append(methods, types.NewFunc(token.NoPos, pkg, m.Name, c.signature(m.Type, nil, 0)))
	}
	it := types.NewInterfaceType(methods, nil)
	it.Complete()
	return it
}

// named returns the named type t, creating it in its package.
func (c *fromReflect) named(t reflect.Type) types.Type {
	pkg := c.imp.pkg(t.PkgPath(), "")
	name := t.Name()
	if i := strings.IndexByte(name, '['); i > 0 {
		// An instance of a generic type: of one of the shell's source
		// packages (iter.Seq[string], say) it is that instance;
		// otherwise a type of its own, named as Go names it.
		if inst := c.imp.instance(pkg, name[:i], t, c); inst != nil {
			return inst
		}
	}
	obj := types.NewTypeName(token.NoPos, pkg, name, nil)
	n := types.NewNamed(obj, nil, nil)
	c.types[t] = n // before the underlying type, which may refer to t
	if !strings.Contains(name, "[") && pkg.Scope().Lookup(name) == nil {
		pkg.Scope().Insert(obj)
	}
	n.SetUnderlying(types.Unalias(c.structure(t, pkg))) // type Token any: the interface, not the alias
	if t.Kind() == reflect.Interface {
		return n
	}
	c.methods(n, t, pkg)
	return n
}

// methods declares the exported methods of the named type t on n: the
// methods of t with value receivers, the others of *t with pointer
// receivers, leaving out the ones that come with a kept embedded field.
func (c *fromReflect) methods(n *types.Named, t reflect.Type, pkg *types.Package) {
	// embedded holds, by name, the methods that the embedded fields
	// bring (a field's own and those of *field), as function types with
	// their receivers.
	embedded := map[string][]reflect.Type{}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.Anonymous {
				continue
			}
			seen := map[string]bool{}
			for _, ft := range []reflect.Type{f.Type, reflect.PointerTo(f.Type)} {
				for j := range ft.NumMethod() {
					if m := ft.Method(j); !seen[m.Name] {
						seen[m.Name] = true
						embedded[m.Name] = append(embedded[m.Name], m.Type)
					}
				}
			}
		}
	}
	// promoted: a method that one embedded field alone brings, with the
	// same parameters and results. Another one of that name is the
	// type's own, which hides the field's (text/template's Template.Parse
	// returns a *Template, its embedded *parse.Tree's Parse a *Tree).
	promoted := func(name string, m reflect.Type) bool {
		fs := embedded[name]
		return len(fs) == 1 && sameSignature(fs[0], m)
	}
	value := map[string]bool{}
	for i := range t.NumMethod() {
		value[t.Method(i).Name] = true
	}
	pt := reflect.PointerTo(t)
	var names []string
	for i := range pt.NumMethod() {
		names = append(names, pt.Method(i).Name)
	}
	sort.Strings(names)
	for _, name := range names {
		var recvType types.Type = n
		m, _ := t.MethodByName(name)
		if !value[name] {
			recvType = types.NewPointer(n)
			m, _ = pt.MethodByName(name)
		}
		if promoted(name, m.Type) {
			continue
		}
		recv := types.NewParam(token.NoPos, pkg, "", recvType)
		n.AddMethod(types.NewFunc(token.NoPos, pkg, name, c.signature(m.Type, recv, 1)))
	}
}

// sameSignature reports whether the methods a and b (function types
// whose first parameter is the receiver) take and return the same types.
func sameSignature(a, b reflect.Type) bool {
	if a.NumIn() != b.NumIn() || a.NumOut() != b.NumOut() || a.IsVariadic() != b.IsVariadic() {
		return false
	}
	for i := 1; i < a.NumIn(); i++ {
		if a.In(i) != b.In(i) {
			return false
		}
	}
	for i := range a.NumOut() {
		if a.Out(i) != b.Out(i) {
			return false
		}
	}
	return true
}

// symbol is the kind of a symbol table entry.
type symbol int

const (
	typeSymbol symbol = iota
	varSymbol
	funcSymbol
	constSymbol
)

// classify tells what a symbol table entry is: a nil pointer stands for
// its element type, an addressable value is a variable, a function value
// a function, and anything else a constant (untyped ones are stored as
// constant.Values).
func classify(v reflect.Value) symbol {
	switch {
	case v.CanAddr():
		return varSymbol
	case v.Kind() == reflect.Pointer && v.IsNil():
		return typeSymbol
	case v.Kind() == reflect.Func:
		return funcSymbol
	}
	return constSymbol
}

// object converts one symbol table entry of pkg into an object.
func (c *fromReflect) object(pkg *types.Package, name string, v reflect.Value) types.Object {
	switch classify(v) {
	case typeSymbol:
		t := v.Type().Elem()
		tt := c.typ(t)
		if n, ok := tt.(*types.Named); ok && n.Obj().Pkg() == pkg && n.Obj().Name() == name {
			return n.Obj()
		}
		return types.NewTypeName(token.NoPos, pkg, name, tt) // an alias
	case varSymbol:
		return types.NewVar(token.NoPos, pkg, name, c.typ(v.Type()))
	case funcSymbol:
		return types.NewFunc(token.NoPos, pkg, name, c.signature(v.Type(), nil, 0))
	}
	if v.Type().Implements(constantType) {
		val := v.Interface().(constant.Value)
		return types.NewConst(token.NoPos, pkg, name, untyped(val), val)
	}
	return types.NewConst(token.NoPos, pkg, name, c.typ(v.Type()), constantOf(v))
}

// untyped returns the untyped type of constants like val.
func untyped(val constant.Value) types.Type {
	switch val.Kind() {
	case constant.Bool:
		return types.Typ[types.UntypedBool]
	case constant.String:
		return types.Typ[types.UntypedString]
	case constant.Int:
		return types.Typ[types.UntypedInt]
	case constant.Float:
		return types.Typ[types.UntypedFloat]
	case constant.Complex:
		return types.Typ[types.UntypedComplex]
	}
	return types.Typ[types.Invalid]
}

// constantOf returns the value of a typed constant.
func constantOf(v reflect.Value) constant.Value {
	switch v.Kind() {
	case reflect.Bool:
		return constant.MakeBool(v.Bool())
	case reflect.String:
		return constant.MakeString(v.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return constant.MakeFloat64(v.Float())
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return constant.BinaryOp(constant.MakeFloat64(real(c)), token.ADD, constant.MakeImag(constant.MakeFloat64(imag(c))))
	}
	return constant.MakeUnknown()
}
