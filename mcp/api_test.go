package mcp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// maxExported bounds package mcp's public API: what a host calls, nothing
// that only the eras need (they reach the core through internal/seam).
// The change-notifications round (record 032) moved it from 130 to 140
// for that round's names; it is 130 again since Call.Log takes an
// slog.Level and LogLevel with its eight constants are gone.
const maxExported = 130

// exported lists the package's exported identifiers: top-level types,
// functions, constants and variables, and the exported methods of
// exported types (as Type.Method). Struct fields are not counted.
func exported(t *testing.T) (names []string, options map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	files := parseFiles(t, fset, func(name string) bool { return !strings.HasSuffix(name, "_test.go") })
	options = map[string]bool{}
	for _, f := range files {
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
	if len(options) < 10 {
		t.Fatalf("found only %d options: the scan is broken", len(options))
	}
	used := optionCalls(t)
	for name := range options {
		if !used[name] {
			t.Errorf("option %s is not called by any test", name)
		}
	}
}

// optionCalls lists the functions the package's tests call (api_test.go
// aside): mcp.F(...) in the external test package, F(...) in the internal
// one. Calls are found in the syntax tree, so a name in a comment, a
// string or a declaration does not count.
func optionCalls(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files := parseFiles(t, fset, func(name string) bool {
		return strings.HasSuffix(name, "_test.go") && name != "api_test.go"
	})
	used := map[string]bool{}
	for _, f := range files {
		name := f.Name.Name // mcp (internal tests) or mcp_test
		{
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fun := call.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := fun.X.(*ast.Ident); ok && x.Name == "mcp" && name == "mcp_test" {
						used[fun.Sel.Name] = true
					}
				case *ast.Ident:
					if name == "mcp" {
						used[fun.Name] = true
					}
				}
				return true
			})
		}
	}
	return used
}

// parseFiles parses the Go files of this directory whose names keep
// accepts (go/parser.ParseDir is deprecated: it ignores build tags, which
// these files do not use).
func parseFiles(t *testing.T, fset *token.FileSet, keep func(name string) bool) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || !keep(e.Name()) {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
