package crash

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCatch: a panic on a worker of a pool, with a front end catching,
// stops it once and is reported with the worker's stack; the pool's
// waiter is not left waiting.
func TestCatch(t *testing.T) {
	stops := 0
	caught := Catch(func() { stops++ })
	var wg sync.WaitGroup
	for i := range 4 {
		GoIn(&wg, func() {
			if i%2 == 1 {
				panic("worker " + string(rune('0'+i)))
			}
		})
	}
	wg.Wait()
	p := caught()
	if p == nil || stops != 1 {
		t.Fatalf("caught %v, stopped %d times; want one panic, one stop", p, stops)
	}
	if !strings.HasPrefix(p.Error(), "panic on a background job: worker ") || !strings.Contains(string(p.Stack), "crash.TestCatch") {
		t.Errorf("the panic says %q with the stack\n%s", p.Error(), p.Stack)
	}
	// Once caught() is called, nothing catches: a later panic is Go's.
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		run(func() { panic("after") })
	}()
	if r := <-done; r != "after" {
		t.Errorf("with no front end the panic went on as %v, want it re-raised", r)
	}
}

// TestEveryGoroutineIsCaught: the program's goroutines are started by Go
// or GoIn, so that none can end the process with the terminal held. Left
// out: the signal watcher (it runs no code of ours that could panic), and
// the test-support packages.
func TestEveryGoroutineIsCaught(t *testing.T) {
	allowed := map[string]bool{"main.go": true}
	skipDirs := map[string]bool{"internal/corpus": true, "internal/realharness": true, "internal/crash": true}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDirs[rel] || (strings.HasPrefix(d.Name(), ".") && rel != ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[rel] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a go statement; start it with crash.Go or crash.GoIn", rel)
			case *ast.SelectorExpr:
				if n.Sel.Name == "Go" {
					if x, ok := n.X.(*ast.Ident); !ok || x.Name != "crash" {
						t.Errorf("%s: %s.Go; start it with crash.GoIn", rel, types.ExprString(n.X))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
