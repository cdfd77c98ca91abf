package repl

import (
	"reflect"
	"strconv"
	"strings"
)

// builtinPrint formats v as the builtin print (ln false) or println
// writes it to standard error: booleans, integers and strings as they
// are, floating-point numbers in their shortest form, complex numbers
// as (re±im i), pointers, channels, maps and functions as their address in
// hex, slices as [len/cap]address, and values of interface types as
// (type word,data word); println puts spaces between the values and a
// newline at the end.
func builtinPrint(v []any, ln bool) string {
	var b strings.Builder
	for i, x := range v {
		if ln && i > 0 {
			b.WriteByte(' ')
		}
		printValue(&b, x)
	}
	if ln {
		b.WriteByte('\n')
	}
	return b.String()
}

// printIface is a value of an interface type given to print or println
// (the runtime's PrintIface), which they write as its two words.
type printIface struct{ v any }

func printValue(b *strings.Builder, x any) {
	if p, ok := x.(printIface); ok {
		if p.v == nil {
			b.WriteString("(0x0,0x0)")
			return
		}
		rv := reflect.ValueOf(interpValue(p.v))
		b.WriteString("(" + hexWord(typeWord(rv.Type())) + "," + hexWord(dataWord(rv)) + ")")
		return
	}
	rv := reflect.ValueOf(interpValue(x))
	if !rv.IsValid() {
		b.WriteString("nil")
		return
	}
	switch rv.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(rv.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(printFloat(rv.Float(), rv.Type().Bits()))
	case reflect.Complex64, reflect.Complex128:
		c, bits := rv.Complex(), rv.Type().Bits()/2
		im := printFloat(imag(c), bits)
		if im[0] != '-' && im[0] != '+' {
			im = "+" + im
		}
		b.WriteString("(" + printFloat(real(c), bits) + im + "i)")
	case reflect.String:
		b.WriteString(rv.String())
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		b.WriteString(hexWord(uint64(rv.Pointer())))
	case reflect.Slice:
		b.WriteString("[" + strconv.Itoa(rv.Len()) + "/" + strconv.Itoa(rv.Cap()) + "]" + hexWord(uint64(rv.Pointer())))
	default:
		b.WriteString("(" + rv.Type().String() + ")")
	}
}

// printFloat writes f as the builtins do: the shortest form that reads
// back as the same value of its size (bits), in %g's style (1.5,
// 1e+100, +Inf, NaN).
func printFloat(f float64, bits int) string { return strconv.FormatFloat(f, 'g', -1, bits) }

// hexWord writes a machine word as the builtins do: 0x and hex digits.
func hexWord(w uint64) string { return "0x" + strconv.FormatUint(w, 16) }

// typeWord stands for the type word of an interface value: an address
// that tells its type apart.
func typeWord(t reflect.Type) uint64 {
	return uint64(reflect.ValueOf(t).Pointer())
}

// dataWord stands for the data word of an interface value: the address
// of the value, or the value of a pointer-shaped one.
func dataWord(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Map, reflect.Func, reflect.UnsafePointer:
		return uint64(v.Pointer())
	}
	if v.CanAddr() {
		return uint64(v.UnsafeAddr())
	}
	return uint64(reflect.ValueOf(&v).Pointer())
}
