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
		// (The interpreter's type switches do not match the values it
		// wraps: this code asserts.)
		if u, ok := err.(interface{ Unwrap() error }); ok {
			stack = append(stack, u.Unwrap())
			continue
		}
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			errs := u.Unwrap()
			for i := len(errs) - 1; i >= 0; i-- {
				stack = append(stack, errs[i])
			}
		}
	}
	return zero, false
}
