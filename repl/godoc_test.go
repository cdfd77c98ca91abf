package repl

import (
	"context"
	"strings"
	"testing"
)

func TestDoc(t *testing.T) {
	s, _, _ := newTestSession(t)
	for _, in := range []string{"a := ndarray.Ones(2, 3)", "// twice doubles.\nfunc twice(v int) int { return 2 * v }", "type pair struct{ A, B int }", "func (p *pair) Sum() int { return p.A + p.B }", "func (p *pair) Sum() int { return p.A*10 + p.B }"} {
		if err := s.Eval(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		want []string // parts of the text, or of the error
		err  bool
	}{
		{"ndarray.Zeros", []string{"func Zeros(shape ...int) *Array"}, false},
		{"ndarray.Array", []string{"type Array struct", "Methods:", "func (a *Array) Reshape(shape ...int) *Array"}, false},
		{"ndarray.Array.Sum", []string{"func (a *Array) Sum(axis int) *Array"}, false},
		{"ndarray", []string{"package ndarray", "Types:", "WeightCollection"}, false},
		{"strings.ToUpper", []string{"func ToUpper(s string) string", "ToUpper returns s with all Unicode letters"}, false},
		{"a.Reshape", []string{"func (a *Array) Reshape(shape ...int) *Array"}, false},
		{"a", []string{"a is a *ndarray.Array", "type Array struct"}, false},
		{"twice", []string{"func twice(v int) int", "declared in in[2]"}, false},
		{"pair", []string{"type pair struct", "declared in in[3]"}, false},
		{"pair.Sum", []string{"func (p *pair) Sum() int", "p.A*10 + p.B", "declared in in[5]"}, false}, // the latest
		{"pair.Nope", []string{"pair has no method Nope"}, true},
		{"len", []string{"func len(v Type) int"}, false},
		{"rdd.Context.Master", []string{"func (sc *Context) Master() string"}, false},
		{"ndarray.Nope", []string{"package ndarray has no exported Nope"}, true},
		{"ndarray.Array.Nope", []string{"has no method or field Nope"}, true},
		{"nosuch", []string{"not an imported package"}, true},
		{"1+1", []string{"not a name"}, true},
	}
	for _, tc := range tests {
		text, err := s.Doc(tc.name)
		if (err != nil) != tc.err {
			t.Errorf(":doc %s: error %v", tc.name, err)
			continue
		}
		if err != nil {
			text = err.Error()
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf(":doc %s lacks %q:\n%s", tc.name, w, text)
			}
		}
	}
}
