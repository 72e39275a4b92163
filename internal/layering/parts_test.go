package layering_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The request's stage-owned parts (mcp/request.go, design record 030):
// each part's fields are written by the methods of the part's own type,
// which the request hands what they read (the caller, the opened task, the
// header values); a stage cannot write another's part by reaching into the
// request.
var ownedParts = []string{"accessCache", "callPart", "roundPart"}

// partWriters are the exceptions: a field written from the files listed,
// and from no other.
var partWriters = map[string][]string{
	// The call a request makes is described once, from the envelope, by
	// newCall; its result is written where it is rendered.
	"callPart.call":    {"round.go"},
	"callPart.toolRes": {"functool.go", "toolresult.go"},
	// The confirmation's course and its lease are the confirm stage's
	// outputs, read by observers and by calltool's settle.
	"roundPart.claim":        {"claim.go"},
	"roundPart.confirmation": {"claim.go", "confirm.go", "legacyask.go"},
}

// TestPartsOwned fails when a function writes a field of an owned part
// outside the methods of that part's type: a field it assigns (a range
// clause's included), increments, takes the address of or calls a
// pointer method on, through the request or the part; or a whole part it
// assigns, directly or through a pointer to it. What it cannot see: a
// write through a pointer into a field (a part's method may return
// one, as callPart.runContext does, and must not leave its filling to the
// caller), through a slice of a field's array, or by a closure stored
// where another function calls it.
func TestPartsOwned(t *testing.T) {
	m := checkMCP(t)
	fset, info := m.fset, m.info
	var bad []string
	seen := map[string]bool{}
	for _, f := range m.files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			recv := receiverName(info, fd)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				var targets []ast.Expr
				switch x := n.(type) {
				case *ast.AssignStmt:
					if x.Tok != token.DEFINE {
						targets = x.Lhs
					}
				case *ast.IncDecStmt:
					targets = []ast.Expr{x.X}
				case *ast.RangeStmt:
					if x.Tok == token.ASSIGN {
						targets = []ast.Expr{x.Key, x.Value}
					}
				case *ast.UnaryExpr:
					if x.Op == token.AND {
						targets = []ast.Expr{x.X}
					}
				case *ast.CallExpr:
					// A pointer method called on an addressable value
					// takes its address; a part's own method is how the
					// request hands the part over.
					if se, ok := x.Fun.(*ast.SelectorExpr); ok {
						if sel := info.Selections[se]; sel != nil && sel.Kind() == types.MethodVal {
							ptr, ptrRecv := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer)
							_, ptrX := info.TypeOf(se.X).Underlying().(*types.Pointer)
							if ptrRecv && !ptrX && !slices.Contains(ownedParts, named(ptr.Elem())) {
								targets = []ast.Expr{se.X}
							}
						}
					}
				}
				for _, e := range targets {
					if e == nil {
						continue
					}
					part, field := ownedField(info, e)
					if part == "" {
						continue
					}
					seen[part] = true
					if part == recv {
						continue
					}
					file := filepath.Base(fset.Position(e.Pos()).Filename)
					if slices.Contains(partWriters[part+"."+field], file) {
						continue
					}
					bad = append(bad, file+": "+fd.Name.Name+" writes "+part+"."+field)
				}
				return true
			})
		}
	}
	for _, p := range ownedParts {
		if !seen[p] {
			t.Errorf("no write of %s found at all: the walk is broken", p)
		}
	}
	slices.Sort(bad)
	bad = slices.Compact(bad)
	if len(bad) > 0 {
		t.Errorf("fields of a stage's part written outside its methods (give the part a method, and the request hand it what it reads):\n%s",
			strings.Join(bad, "\n"))
	}
}

// receiverName is the name of fd's receiver type ("" for a function).
func receiverName(info *types.Info, fd *ast.FuncDecl) string {
	if fd.Recv == nil {
		return ""
	}
	fn, _ := info.Defs[fd.Name].(*types.Func)
	if fn == nil {
		return ""
	}
	rt := fn.Type().(*types.Signature).Recv().Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	if n, ok := rt.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// ownedField reports the owned part and field that writing e writes, if
// any: e selects the field directly, or an element or member of a value
// the field holds (an array element, a struct member); writing through a
// pointer, slice or map the field holds is not writing the field.
func ownedField(info *types.Info, e ast.Expr) (part, field string) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			if _, isArray := info.TypeOf(x.X).Underlying().(*types.Array); !isArray {
				return "", ""
			}
			e = x.X
			continue
		case *ast.StarExpr:
			// *p = ... where p points to a whole part.
			if p, ok := info.TypeOf(x.X).(*types.Pointer); ok {
				if n := named(p.Elem()); slices.Contains(ownedParts, n) {
					return n, "(whole)"
				}
			}
			return "", ""
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal {
				return "", ""
			}
			if h := holder(sel); slices.Contains(ownedParts, h) {
				return h, sel.Obj().Name()
			}
			if n := named(sel.Obj().Type()); slices.Contains(ownedParts, n) {
				return n, "(whole)" // req.accessCache = ...
			}
			if _, isPtr := info.TypeOf(x.X).Underlying().(*types.Pointer); isPtr {
				return "", ""
			}
			e = x.X
			continue
		}
		return "", ""
	}
}

// holder names the struct type that declares the field sel selects,
// following embedded fields from the receiver.
func holder(sel *types.Selection) string {
	t := sel.Recv()
	idx := sel.Index()
	for i, k := range idx {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if i == len(idx)-1 {
			break
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return ""
		}
		t = st.Field(k).Type()
	}
	return named(t)
}

// named is t's type name, "" for an unnamed type.
func named(t types.Type) string {
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}
