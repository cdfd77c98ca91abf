// Package errors adds to the compiled errors package its generic
// function, which the interpreter cannot take from compiled code.
package errors

import "sparknet-shell/builtin"

// AsType finds the first error in err's tree that is an E, and returns
// it and true, or the zero E and false.
func AsType[E error](err error) (E, bool) {
	var e E
	if builtin.ErrorsAs[E](err, &e) {
		return e, true
	}
	return e, false
}
