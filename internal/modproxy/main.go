// Command modproxy packs modules of this repository at one release version
// into a file module proxy, and writes a consumer module that requires them
// all by that version, for .ci/modules.sh. What a user outside the tree
// would fetch once the tags exist (v0.5.0, mcp/openapi/v0.5.0, ...) is
// then built and tested with GOPROXY=file://<out> and no replace.
//
//	go run . -version v0.5.0 -out <proxy dir> -consumer <dir> <module dir>...
//
// Each module directory is packed as the go command would download it
// from a tag: the zip holds the directory's files under module@version/,
// without nested modules, vendor directories or files the module zip
// format excludes (golang.org/x/mod/zip decides), and the .mod file is the
// directory's go.mod as it is, replace directives included (the go command
// ignores a dependency's replace directives, which is why they may stay
// for development). A module that requires another module of this
// repository at any version but the release version is refused: the
// consumer could not resolve it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

// family is the module path prefix of this repository's modules.
const family = "github.com/mcpdual/mcpdual"

func main() {
	version := flag.String("version", "", "the release version every module is packed at, such as v0.5.0")
	out := flag.String("out", "", "the file module proxy directory to write")
	consumer := flag.String("consumer", "", "the directory to write the consumer module's go.mod and imports.go to")
	flag.Parse()
	if err := run(*version, *out, *consumer, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

// packed is one module written to the proxy.
type packed struct {
	path     string   // module path
	packages []string // its importable, non-internal, non-main packages
}

func run(version, out, consumer string, dirs []string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("-version %q is not a canonical semantic version such as v0.5.0", version)
	}
	if out == "" || consumer == "" || len(dirs) == 0 {
		return errors.New("usage: modproxy -version v0.5.0 -out <dir> -consumer <dir> <module dir>...")
	}
	var mods []packed
	for _, dir := range dirs {
		p, err := pack(version, out, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		mods = append(mods, p)
	}
	slices.SortFunc(mods, func(a, b packed) int { return strings.Compare(a.path, b.path) })
	for i := 1; i < len(mods); i++ {
		if mods[i].path == mods[i-1].path {
			return fmt.Errorf("module %s is given twice", mods[i].path)
		}
	}
	return writeConsumer(version, consumer, mods)
}

// pack writes dir's module at version into the proxy at out.
func pack(version, out, dir string) (packed, error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return packed{}, err
	}
	f, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		return packed{}, err
	}
	if f.Module == nil {
		return packed{}, errors.New("go.mod names no module")
	}
	mod := f.Module.Mod.Path
	if mod != family && !strings.HasPrefix(mod, family+"/") {
		return packed{}, fmt.Errorf("module %s is not one of %s's", mod, family)
	}
	for _, r := range f.Require {
		if (r.Mod.Path == family || strings.HasPrefix(r.Mod.Path, family+"/")) && r.Mod.Version != version {
			return packed{}, fmt.Errorf("%s requires %s %s; every module of this repository is released at %s, so it must require %s",
				mod, r.Mod.Path, r.Mod.Version, version, version)
		}
	}
	escaped, err := module.EscapePath(mod)
	if err != nil {
		return packed{}, err
	}
	at := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return packed{}, err
	}
	z, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return packed{}, err
	}
	err = modzip.CreateFromDir(z, module.Version{Path: mod, Version: version}, dir)
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return packed{}, err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	for name, data := range map[string][]byte{
		version + ".mod":  gomod,
		version + ".info": info,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return packed{}, err
		}
	}
	pkgs, err := importable(mod, dir)
	if err != nil {
		return packed{}, err
	}
	return packed{path: mod, packages: pkgs}, nil
}

// importable lists the packages of the module at dir that another module
// may import: not main, not internal, not in testdata or a nested module.
func importable(mod, dir string) ([]string, error) {
	var pkgs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." {
			if name == "testdata" || name == "vendor" || name == "internal" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
		}
		bp, err := build.ImportDir(p, 0)
		var none *build.NoGoError
		switch {
		case errors.As(err, &none):
			return nil
		case err != nil:
			return err
		case bp.Name == "main":
			return nil
		}
		if rel == "." {
			pkgs = append(pkgs, mod)
		} else {
			pkgs = append(pkgs, path.Join(mod, rel))
		}
		return nil
	})
	return pkgs, err
}

// writeConsumer writes the go.mod of a module outside the repository that
// requires every packed module at version, with no replace, and
// imports.go, which imports every package they export.
func writeConsumer(version, dir string, mods []packed) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var gomod bytes.Buffer
	fmt.Fprintf(&gomod, "module example.com/consumer\n\ngo 1.26.0\n\nrequire (\n")
	for _, m := range mods {
		fmt.Fprintf(&gomod, "\t%s %s\n", m.path, version)
	}
	fmt.Fprintf(&gomod, ")\n")
	var imports bytes.Buffer
	fmt.Fprintf(&imports, "// Code generated by internal/modproxy. DO NOT EDIT.\n\n")
	fmt.Fprintf(&imports, "// Package consumer imports every package of every module packed,\n// each at %s, through the file module proxy.\npackage consumer\n\nimport (\n", version)
	for _, m := range mods {
		for _, p := range m.packages {
			fmt.Fprintf(&imports, "\t_ %q\n", p)
		}
	}
	fmt.Fprintf(&imports, ")\n")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), gomod.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "imports.go"), imports.Bytes(), 0o644)
}
