package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkReopen times a Scan of an unchanged fleet from its cache, as a
// new process does: a new Index, the cache read, every file stat'ed.
// scripts/bench-index.sh times the whole command on the 2 GB fleet.
func BenchmarkReopen(b *testing.B) {
	dir := b.TempDir()
	shape := corpus.DefaultFleet
	shape.MeanCalls = 20
	if _, err := corpus.WriteFleet(filepath.Join(dir, "fleet"), shape); err != nil {
		b.Fatal(err)
	}
	inputs, err := app.Resolve([]string{filepath.Join(dir, "fleet")}, app.Env{})
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{CacheDir: filepath.Join(dir, "cache")}
	scan := func() {
		ix, err := Open(opt)
		if err != nil {
			b.Fatal(err)
		}
		if _, w, err := ix.Scan(context.Background(), inputs, nil); err != nil || len(w) > 0 {
			b.Fatal(err, w)
		}
	}
	scan()
	for b.Loop() {
		scan()
	}
}
