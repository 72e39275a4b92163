package mcp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"
)

// maxExported bounds package mcp's public API: what a host calls, nothing
// that only the eras need (they reach the core through internal/seam).
const maxExported = 130

// exported lists the package's exported identifiers: top-level types,
// functions, constants and variables, and the exported methods of
// exported types (as Type.Method). Struct fields are not counted.
func exported(t *testing.T) (names []string, options map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	options = map[string]bool{}
	for _, f := range pkgs["mcp"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
					if r := d.Type.Results; r != nil && len(r.List) == 1 {
						if id, ok := r.List[0].Type.(*ast.Ident); ok && strings.HasSuffix(id.Name, "Option") {
							options[d.Name.Name] = true
						}
					}
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					names = append(names, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names, options
}

func TestAPI_Size(t *testing.T) {
	names, _ := exported(t)
	if len(names) > maxExported {
		t.Errorf("package mcp exports %d identifiers, at most %d:\n%s", len(names), maxExported, strings.Join(names, "\n"))
	}
	t.Logf("package mcp exports %d identifiers", len(names))
}

// TestAPI_OptionsTested: every exported option is exercised by a test of
// this package.
func TestAPI_OptionsTested(t *testing.T) {
	_, options := exported(t)
	var tests strings.Builder
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") && e.Name() != "api_test.go" {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			tests.Write(b)
		}
	}
	if len(options) < 10 {
		t.Fatalf("found only %d options: the scan is broken", len(options))
	}
	for name := range options {
		if !strings.Contains(tests.String(), "mcp."+name+"(") {
			t.Errorf("option %s is not used by any test", name)
		}
	}
}
