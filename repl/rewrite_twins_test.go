package repl

import "testing"

// TestTwinTypesAcrossInputs declares types of the same fields in
// separate inputs, as a notebook's cells do: the later one is told apart
// from the earlier one by type switches, assertions and ==, its values
// print as Go prints them, its positional literals and the conversions
// between the two work in later inputs too, and declaring it again with
// other fields makes it a type of its own.
func TestTwinTypesAcrossInputs(t *testing.T) {
	s, out, _ := newTestSession(t)
	evalSteps(t, s, out, []evalStep{
		{in: "type Cat struct{ Name string }\nfunc (c Cat) String() string { return \"cat \" + c.Name }", out: ""},
		{in: "type Dog struct{ Name string }", out: ""},
		{in: "func kind(v any) string {\n\tswitch v.(type) {\n\tcase Cat:\n\t\treturn \"Cat\"\n\tcase Dog:\n\t\treturn \"Dog\"\n\t}\n\treturn \"?\"\n}", out: ""},
		{in: `d := Dog{"rex"}`, out: ""},
		{in: `fmt.Println(kind(d), kind(Cat{"tom"}), kind(&d))`, out: "Dog Cat ?\n"},
		{in: `var x any = d; _, isCat := x.(Cat); fmt.Println(isCat, x == any(Cat{"rex"}), x == any(Dog{"rex"}))`, out: "false false true\n"},
		{in: `fmt.Printf("%v %+v %#v %v\n", d, d, d, []any{d, Cat(d)})`, out: "{rex} {Name:rex} main.Dog{Name:\"rex\"} [{rex} cat rex]\n"},
		{in: `fmt.Println(Dog(Cat{"kit"}), []Dog{{"a"}, {Name: "b"}})`, out: "{kit} [{a} {b}]\n"},
		{in: "type Dog struct{ Name string; Age int }", out: ""},
		{in: `fmt.Println(kind(Dog{"max", 3}), Dog{"max", 3})`, out: "Dog {max 3}\n"},
	})
}
