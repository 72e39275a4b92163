package layering_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpdual/mcpdual/"

// allowed is the import table of the design card ("Module and packages"),
// with the packages added since recorded in internal/design. It is: for each package directory, the
// module packages its non-test files may import. Test files are exempt, so
// external tests may combine the eras.
var allowed = map[string][]string{
	"headers":          {},
	"internal/jsonrpc": {},
	"internal/schema":  {"internal/jsonrpc"},
	"internal/seam":    {"headers", "internal/jsonrpc", "mrtr"},
	"internal/local":   {"mcp/auth", "internal/jsonrpc"},
	"internal/syncbuf": {},
	// inproc (design record 030): the route pattern and the recorder of an
	// in-process route call, leaves mcp uses.
	"internal/inproc": {},
	"internal/origin": {},
	"mrtr":            {},
	"mcp/auth":        {"internal/panics"},
	"mcp/content":     {"internal/jsonrpc"},
	"mcp/ratelimit":   {"internal/httpsyntax"},
	"mcp/observe":     {"internal/jsonrpc"},
	"mcp/task":        {},
	"mcp/protocol":    {},
	"mcp":             {"headers", "mcp/auth", "mcp/content", "mcp/observe", "mcp/ratelimit", "mcp/task", "mcp/protocol", "internal/jsonrpc", "internal/local", "internal/schema", "internal/seam", "internal/typeschema", "mcp/apps", "internal/inproc", "internal/origin", "internal/panics", "internal/httpsyntax"},
	"era2025":         {"mcp/protocol", "headers", "mrtr", "internal/jsonrpc", "internal/seam"},
	"era2026":         {"mcp/protocol", "headers", "mrtr", "internal/jsonrpc", "internal/seam"},
	"mcp/mcptest":     {"mcp", "headers", "internal/jsonrpc", "internal/schema"},
	"mcp/stdio":       {"headers", "mcp/auth", "internal/jsonrpc", "internal/local", "internal/seam", "internal/panics"},

	// typeschema (design record 024): a core package since schemas come
	// from types on the standard library alone; the engine is internal,
	// and mcp uses it for AddToolFunc.
	"internal/typeschema": {},
	"mcp/typeschema":      {"internal/typeschema"},
	// mcpcheck (design record 021): the kit's battery as a command.
	"mcp/mcptest/cmd/mcpcheck": {"mcp", "mcp/mcptest"},
	// apps (design record 026): MCP Apps' types, plain data; mcp checks
	// and renders them.
	"mcp/apps": {},
	// panics (design record 011): a recovered panic described for a log,
	// never its value; mcp, stdio and auth log their hosts' panics so.
	"internal/panics": {},
	// httpsyntax (design record 011): the syntax of HTTP field values that
	// mcp (Accept) and ratelimit (Forwarded) both read.
	"internal/httpsyntax": {},
	// storetest (design record 029): the contract suite of the stores'
	// interfaces, for their implementations' tests.
	"mcp/mcptest/storetest": {"mcp", "mcp/ratelimit"},
}

// examples may use the public packages only.
var public = []string{"mcp", "era2025", "era2026", "headers", "mrtr", "mcp/auth", "mcp/content", "mcp/observe", "mcp/ratelimit", "mcp/task", "mcp/protocol", "mcp/mcptest", "mcp/mcptest/storetest", "mcp/stdio", "mcp/typeschema", "mcp/apps"}

// integrations are the public packages of the modules of their own, which
// examples may also use.
var integrations = []string{"mcp/openapi", "mcp/redisstore", "mcp/otelmcp", "mcp/oidc"}

// thirdParty lists the only non-module imports allowed, per package.
var thirdParty = map[string][]string{
	"internal/schema": {"github.com/santhosh-tekuri/jsonschema/v6", "github.com/santhosh-tekuri/jsonschema/v6/kind", "golang.org/x/text/language", "golang.org/x/text/message"},
	"mrtr":            {"golang.org/x/crypto/"},
}

func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	var nested []string  // roots of the modules of their own walked, with a trailing "/"
	const root = "../.." // the module root, from internal/layering
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() && filepath.Dir(path) == filepath.Clean(root) && !card[d.Name()] {
			return filepath.SkipDir // not the tree's: a module cache or bin/ a developer keeps (TestTopLevel judges the root)
		}
		if d.IsDir() && path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				rel, _ := filepath.Rel(root, path)
				if strings.HasPrefix(filepath.ToSlash(rel), "internal/") {
					return filepath.SkipDir // a harness (internal/bench, routertest, interop): not built on the library alone
				}
				// An example or an integration module of its own: it may
				// use the public packages only, and its own dependencies.
				nested = append(nested, filepath.ToSlash(rel)+"/")
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		inNested := slices.ContainsFunc(nested, func(n string) bool { return strings.HasPrefix(dir+"/", n) })
		if dir == "." {
			t.Errorf("%s: the module root holds no Go code (design card)", rel)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, spec := range f.Imports {
			imp := strings.Trim(spec.Path.Value, `"`)
			if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
				continue // standard library
			}
			if rel, ok := strings.CutPrefix(imp, module); ok {
				if inNested {
					if !slices.Contains(public, rel) && !slices.Contains(integrations, rel) {
						t.Errorf("%s imports %s: a module of its own builds on the public packages only", path, imp)
					}
					continue
				}
				if !importAllowed(dir, rel) {
					t.Errorf("%s imports %s, which the layering table forbids", path, imp)
				}
				continue
			}
			if !inNested && !thirdPartyAllowed(dir, imp) {
				t.Errorf("%s imports %s: third-party imports belong in internal/schema or mrtr only", path, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: the walk is broken", checked)
	}
}

func importAllowed(dir, rel string) bool {
	if strings.HasPrefix(dir, "examples/") {
		for _, p := range public {
			if rel == p {
				return true
			}
		}
		return false
	}
	list, known := allowed[dir]
	if !known {
		return false // a new package must be added to the table first
	}
	for _, p := range list {
		if rel == p {
			return true
		}
	}
	return false
}

func thirdPartyAllowed(dir, imp string) bool {
	for _, p := range thirdParty[dir] {
		if imp == p || strings.HasSuffix(p, "/") && strings.HasPrefix(imp, p) {
			return true
		}
	}
	return false
}

// card is the module root's entries, the design card's list.
var card = map[string]bool{
	"mcp": true, "era2025": true, "era2026": true, "mrtr": true, "headers": true,
	"examples": true, "internal": true, "go.mod": true, "go.sum": true,
	"LICENSE": true, "README.md": true,
}

// TestTopLevel keeps the module root to the design card's entries (dotfiles
// such as .ci and .gitignore aside). It judges what the repository tracks
// (git ls-files), not the directory: a module cache, a bin/ or any other
// untracked folder a developer keeps at the root is not part of the tree.
// In a copy without git it can only check that the card's entries exist.
func TestTopLevel(t *testing.T) {
	for name := range card {
		if _, err := os.Stat(filepath.Join("../..", name)); err != nil {
			t.Errorf("%s is missing from the module root", name)
		}
	}
	tracked, ok := trackedTopLevel(t)
	if !ok {
		t.Log("not a git checkout (or no git): only the card's entries were checked")
		return
	}
	for name := range tracked {
		if !strings.HasPrefix(name, ".") && !card[name] {
			t.Errorf("%s sits at the module root; the design card allows only %v", name, keys(card))
		}
	}
}

// trackedTopLevel lists the first path element of every file git tracks
// in the repository; ok is false outside a git checkout.
func trackedTopLevel(t *testing.T) (map[string]bool, bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false
	}
	cmd := exec.Command(git, "-C", "../..", "ls-files", "-z", "--full-name", ":/")
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	names := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		first, _, _ := strings.Cut(f, "/")
		names[first] = true
	}
	if len(names) == 0 {
		t.Fatal("git ls-files listed no file")
	}
	return names, true
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
