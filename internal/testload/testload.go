// Package testload loads, for tests, a heap dump file with its objects and
// the file-backed dump reader attached, as the session does: the one place
// where the analysis packages' tests open a dump, so that analysis itself
// opens no file.
package testload

import (
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
)

// Heap loads the dump at path with its objects; its values are read back
// from the file.
func Heap(t testing.TB, path string) *model.Heap {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	dumpfile.Attach(h, path)
	return h
}

// Fixture loads the dump name of testdata/jvm, seen from a package two
// levels below the repository root, and builds its dominator tree.
func Fixture(t testing.TB, name string) (*model.Heap, *graph.Retention) {
	t.Helper()
	h := Heap(t, filepath.Join("..", "..", "testdata", "jvm", name))
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h, r
}
