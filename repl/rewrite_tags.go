package repl

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// The interpreter's structs are reflection's struct types, whose fields
// must be exported: it exports every field, p as Xp. encoding/json and
// encoding/xml then marshal the fields that Go keeps to the package
// ({"Xprice":0}). unexportedTags tags each unexported field that is not
// embedded json:"-" and xml:"-" (in place of any json or xml key it has,
// which Go ignores on such a field), so that they leave it out.
func (r *typedRewriter) unexportedTags(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok || st.Fields == nil {
			return true
		}
		// A field of exported and unexported names (A, b int) becomes one
		// field per name: a tag applies to all the names of its field.
		var list []*ast.Field
		for _, fd := range st.Fields.List {
			mixed := false
			for _, id := range fd.Names {
				mixed = mixed || token.IsExported(id.Name) != token.IsExported(fd.Names[0].Name)
			}
			if !mixed {
				list = append(list, fd)
				continue
			}
			for i, id := range fd.Names {
				c := &ast.Field{Names: []*ast.Ident{id}, Type: fd.Type, Tag: fd.Tag}
				if i > 0 {
					c.Type = copyExpr(fd.Type)
				}
				list = append(list, c)
			}
		}
		st.Fields.List = list
		for _, fd := range st.Fields.List {
			if len(fd.Names) == 0 || token.IsExported(fd.Names[0].Name) {
				continue // embedded (Go promotes its exported fields), or exported
			}
			tag := ""
			if fd.Tag != nil {
				if t, err := strconv.Unquote(fd.Tag.Value); err == nil {
					tag = t
				}
			}
			pos := fd.Type.End()
			if fd.Tag != nil {
				pos = fd.Tag.Pos()
			}
			fd.Tag = &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(hiddenTag(tag))}
		}
		return true
	})
}

// hiddenTag returns tag with the keys json and xml set to "-".
func hiddenTag(tag string) string {
	var keep []string
	for _, kv := range splitTag(tag) {
		if kv[0] != "json" && kv[0] != "xml" {
			keep = append(keep, kv[0]+":"+strconv.Quote(kv[1]))
		}
	}
	keep = append(keep, `json:"-"`, `xml:"-"`)
	return strings.Join(keep, " ")
}

// splitTag splits a struct tag in the conventional format into its keys
// and values, stopping at the first malformed pair.
func splitTag(tag string) [][2]string {
	var out [][2]string
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		name := tag[:i]
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		v, err := strconv.Unquote(tag[:i+1])
		if err != nil {
			break
		}
		out = append(out, [2]string{name, v})
		tag = tag[i+1:]
	}
	return out
}
