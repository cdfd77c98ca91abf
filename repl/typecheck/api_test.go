package typecheck

import (
	"go/importer"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// TestSourceAPI checks that the shell's source packages declare what Go's
// own packages of the same path export, with the same types: an input
// that Go accepts is accepted, and the messages name the same types.
func TestSourceAPI(t *testing.T) {
	real := importer.ForCompiler(token.NewFileSet(), "source", nil)
	qual := func(p *types.Package) string { return strings.TrimPrefix(p.Path(), shellPrefix+"overlay/") }
	for path := range sourceDirs {
		if strings.HasPrefix(path, shellPrefix) && !strings.HasPrefix(path, shellPrefix+"overlay/") {
			continue
		}
		t.Run(path, func(t *testing.T) {
			src, err := testImporter().Source(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := real.Import(qual(src.Pkg))
			if err != nil {
				t.Fatal(err)
			}
			ours := src.Pkg.Scope()
			for _, name := range want.Scope().Names() {
				obj := want.Scope().Lookup(name)
				if !obj.Exported() {
					continue
				}
				if src.Extends != "" {
					// An overlay holds the generic functions only.
					if f, ok := obj.(*types.Func); !ok || f.Type().(*types.Signature).TypeParams().Len() == 0 {
						continue
					}
				}
				got := ours.Lookup(name)
				if got == nil {
					t.Errorf("%s.%s is missing", path, name)
					continue
				}
				if g, w := types.ObjectString(got, qual), types.ObjectString(obj, qual); g != w {
					t.Errorf("%s.%s:\n got %s\nwant %s", path, name, g, w)
				}
			}
			for _, name := range ours.Names() {
				if obj := ours.Lookup(name); obj.Exported() && want.Scope().Lookup(name) == nil {
					t.Errorf("%s.%s is not in Go's package", path, name)
				}
			}
		})
	}
}
