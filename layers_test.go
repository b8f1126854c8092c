package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers are CONTRIBUTING.md's, from the screens down: a package imports
// only from its own layer or those after it. The helpers every layer may
// use are in none.
var layers = [][]string{
	{"main", "ui", "spillview", "report"},
	{"internal/sessions", "internal/index"},
	{"internal/app"},
	{"guard"},
	{"transcript"},
}

// layerOf is the layer of a package by its path in the module, -1 for a
// helper.
func layerOf(pkg string) int {
	for i, l := range layers {
		for _, prefix := range l {
			if pkg == prefix || strings.HasPrefix(pkg, prefix+"/") {
				return i
			}
		}
	}
	return -1
}

// TestLayers: no package reaches back up the chain of layers.
func TestLayers(t *testing.T) {
	const module = "github.com/spillway-dev/spillway/"
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = "main"
		}
		from := layerOf(pkg)
		if from < 0 {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if to := layerOf(dep); to >= 0 && to < from {
				t.Errorf("%s imports %s, a layer above it", path, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
