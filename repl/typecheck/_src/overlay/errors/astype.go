// Package errors adds to the compiled errors package its generic
// function, which the interpreter cannot take from compiled code.
package errors

// AsType finds the first error in err's tree that is an E, and returns
// it and true, or the zero E and false.
func AsType[E error](err error) (E, bool) {
	var zero E
	stack := []error{err}
	for len(stack) > 0 {
		err := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if err == nil {
			continue
		}
		if v, ok := err.(E); ok {
			return v, true
		}
		var e E
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(&e) {
			return e, true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, x.Unwrap())
		case interface{ Unwrap() []error }:
			errs := x.Unwrap()
			for i := len(errs) - 1; i >= 0; i-- {
				stack = append(stack, errs[i])
			}
		}
	}
	return zero, false
}
