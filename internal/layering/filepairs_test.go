package layering_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// maxMutualPairs bounds the pairs of package mcp's non-test files that
// use names declared in each other (design record 030). Lower it when a
// change removes pairs; never raise it: a new pair means a file reaches
// back into a stage that already reaches into it.
const maxMutualPairs = 12

// maxFileLines bounds every non-test file of package mcp, so that fewer
// pairs are not bought by merging files.
const maxFileLines = 700

// TestFilePairs type-checks package mcp's non-test files and counts the
// mutual pairs: file A uses a package-level name, a method or a field
// declared in file B, and B uses one declared in A.
func TestFilePairs(t *testing.T) {
	pairs, lines := mutualPairs(t)
	for name, n := range lines {
		if n > maxFileLines {
			t.Errorf("mcp/%s has %d lines; at most %d (split it by idea)", name, n, maxFileLines)
		}
	}
	t.Logf("package mcp: %d mutual file pairs (bound %d)", len(pairs), maxMutualPairs)
	if len(pairs) > maxMutualPairs {
		t.Errorf("package mcp has %d mutual file pairs, above the bound %d:\n%s", len(pairs), maxMutualPairs, strings.Join(pairs, "\n"))
	}
	if testing.Verbose() && len(pairs) <= maxMutualPairs {
		for _, p := range pairs {
			t.Log(p)
		}
	}
}

// mutualPairs returns the sorted mutual pairs ("a.go <-> b.go") of
// package mcp and the line count of each non-test file.
func mutualPairs(t *testing.T) ([]string, map[string]int) {
	t.Helper()
	uses, lines := fileUses(t)
	var pairs []string
	for u := range uses {
		if u[0] < u[1] && uses[[2]string{u[1], u[0]}] {
			pairs = append(pairs, u[0]+" <-> "+u[1])
		}
	}
	slices.Sort(pairs)
	return pairs, lines
}

// fileUses returns, for package mcp, which of its non-test files
// uses a name declared in which ({user, declarer}; a name of another
// package counts as declared in "pkg:" and its import path), and the line
// count of each non-test file.
func fileUses(t *testing.T) (map[[2]string]bool, map[string]int) {
	t.Helper()
	m := checkMCP(t)
	fset, info, pkg, lines := m.fset, m.info, m.pkg, m.lines
	uses := map[[2]string]bool{} // {user, declarer}
	for id, obj := range info.Uses {
		if obj.Pkg() != nil && obj.Pkg() != pkg {
			user := filepath.Base(fset.Position(id.Pos()).Filename)
			uses[[2]string{user, "pkg:" + obj.Pkg().Path()}] = true
			continue
		}
		if obj.Pkg() != pkg || !declaredAtTop(obj) {
			continue
		}
		user := filepath.Base(fset.Position(id.Pos()).Filename)
		decl := filepath.Base(fset.Position(obj.Pos()).Filename)
		if user != decl {
			uses[[2]string{user, decl}] = true
		}
	}
	return uses, lines
}

// checked is package mcp's non-test files, parsed and type-checked.
type checked struct {
	fset  *token.FileSet
	files []*ast.File
	info  *types.Info
	pkg   *types.Package
	lines map[string]int // each file's line count
	err   error
}

// loaded is package mcp checked once for every test of this file and
// parts_test.go: the source importer takes seconds.
var (
	loadOnce sync.Once
	loaded   checked
)

// checkMCP parses and type-checks the non-test files of package mcp,
// once.
func checkMCP(t *testing.T) *checked {
	t.Helper()
	const dir = "../../mcp"
	loadOnce.Do(func() {
		l := &loaded
		l.fset = token.NewFileSet()
		l.lines = map[string]int{}
		entries, err := os.ReadDir(dir)
		if err != nil {
			l.err = err
			return
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(l.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				l.err = err
				return
			}
			l.files = append(l.files, f)
			l.lines[name] = l.fset.File(f.Pos()).LineCount()
		}
		if len(l.files) < 10 {
			l.err = fmt.Errorf("found only %d files in %s: the walk is broken", len(l.files), dir)
			return
		}
		l.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: importer.ForCompiler(l.fset, "source", nil)}
		l.pkg, l.err = conf.Check("github.com/mcpdual/mcpdual/mcp", l.fset, l.files, l.info)
	})
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	return &loaded
}

// declaredAtTop reports whether obj is a package-level name, a method or a
// struct field (a local variable or a parameter is not a file's export).
func declaredAtTop(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Var:
		if o.IsField() {
			return true
		}
	case *types.Func:
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
			return true
		}
	}
	return obj.Parent() == obj.Pkg().Scope()
}

// TestExtensionFiles: an extension registers through the core's one hook
// (mcp/extension.go), so that it touches its own files plus at most two
// core files — those of the items it adds fields to. MCP Apps shows it:
// the files of package mcp that use package mcp/apps or a name declared
// in Apps' own files are those files, tool.go and resource.go.
func TestExtensionFiles(t *testing.T) {
	own := []string{"appsext.go", "appsmeta.go"}
	core := []string{"resource.go", "tool.go"}
	uses, _ := fileUses(t)
	var touching []string
	for u := range uses {
		if (u[1] == "pkg:github.com/mcpdual/mcpdual/mcp/apps" || slices.Contains(own, u[1])) && !slices.Contains(touching, u[0]) {
			touching = append(touching, u[0])
		}
	}
	slices.Sort(touching)
	want := slices.Sorted(slices.Values(append(slices.Clone(own), core...)))
	if !slices.Equal(touching, want) {
		t.Errorf("the files touching MCP Apps are %v, want %v: an extension reaches the core through extension.go", touching, want)
	}
}
