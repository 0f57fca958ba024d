package graph

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
)

// fixtureHeaps loads a few of the JVM's heap dumps in testdata.
func fixtureHeaps(t *testing.T) map[string]*model.Heap {
	t.Helper()
	out := map[string]*model.Heap{}
	for _, name := range []string{"jvm/jdk17-default.hprof.gz", "jvm/jdk25-coh.hprof.gz", "agent/heap-binary.hprof.gz"} {
		out[name] = loadFixture(t, name)
	}
	return out
}

// loadFixture loads the dump name of testdata with its objects.
func loadFixture(t *testing.T, name string) *model.Heap {
	t.Helper()
	f, err := input.Open(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// compareRetention checks every object of r against the serial reference.
func compareRetention(t *testing.T, what string, h *model.Heap, r *Retention, want serialRetention) {
	t.Helper()
	errors := 0
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if r.Reachable(obj) != want.reachable[i] {
			t.Errorf("%s: object %d reachable %v, want %v", what, i, r.Reachable(obj), want.reachable[i])
			errors++
		} else if want.reachable[i] {
			if d := r.ImmediateDominator(obj); d != want.idom[i] {
				t.Errorf("%s: object %d: immediate dominator %d, want %d", what, i, d, want.idom[i])
				errors++
			}
			if c, b := r.RetainedObjects(obj), r.RetainedBytes(obj); c != want.retainedCount[i] || b != want.retainedBytes[i] {
				t.Errorf("%s: object %d retains %d objects, %d bytes; want %d, %d", what, i, c, b, want.retainedCount[i], want.retainedBytes[i])
				errors++
			}
		}
		if errors > 10 {
			t.Fatalf("%s: giving up", what)
		}
	}
}

// TestRetentionMatchesSerial compares the dominator tree and retained
// sizes with those of the serial implementation they replaced, object by
// object, on random heaps and the JVM's fixtures, with one and four
// goroutines, and with four scattering the depth-first numbering in
// windows of 8 words (see inWindows).
func TestRetentionMatchesSerial(t *testing.T) {
	heaps := map[string]*model.Heap{}
	for seed := range uint64(40) {
		heaps[fmt.Sprintf("random %d", seed)] = analysistest.RandomHeap(t, seed)
	}
	if !testing.Short() {
		for name, h := range fixtureHeaps(t) {
			heaps[name] = h
		}
	}
	for name, h := range heaps {
		for _, o := range []RetentionOptions{{Size: model.SizeJVM}, {Size: model.SizeFields, KeepUnreachable: true}} {
			want := serialComputeRetention(h, o)
			for _, run := range []struct{ procs, window int }{{1, scatterWindow}, {4, scatterWindow}, {4, 8}} {
				withParallelism(run.procs, func() {
					defer withScatterWindow(run.window)()
					r, err := ComputeRetention(h, o)
					if err != nil {
						t.Fatal(err)
					}
					compareRetention(t, fmt.Sprintf("%s, %+v, %d procs, windows of %d", name, o, run.procs, run.window), h, r, want)
				})
			}
		}
	}
}

// TestShortestPathTreeMatchesSerial compares the breadth-first tree with
// the one of the serial first-in first-out search it replaced, with and
// without referents, with one and four goroutines, and with four giving
// each level's parents in windows of 8 words (see inWindows).
func TestShortestPathTreeMatchesSerial(t *testing.T) {
	heaps := map[string]*model.Heap{}
	for seed := range uint64(40) {
		heaps[fmt.Sprintf("random %d", seed)] = analysistest.RandomHeap(t, seed)
	}
	if !testing.Short() {
		for name, h := range fixtureHeaps(t) {
			heaps[name] = h
		}
	}
	for name, h := range heaps {
		for _, weak := range []bool{false, true} {
			want := serialShortestPathTree(h, weak)
			for _, run := range []struct{ procs, window int }{{1, scatterWindow}, {4, scatterWindow}, {4, 8}} {
				withParallelism(run.procs, func() {
					defer withScatterWindow(run.window)()
					got := shortestPathTree(h, weak)
					if !slices.Equal(got, want) {
						k := 0
						for got[k] == want[k] {
							k++
						}
						t.Errorf("%s, weak %v, %d procs, windows of %d: object %d has parent %d, want %d", name, weak, run.procs, run.window, k, got[k], want[k])
					}
				})
			}
		}
	}
}

// withParallelism is analysistest.WithParallelism with the breadth-first
// levels of the shortest path tree cut as small as they go too.
func withParallelism(procs int, fn func()) {
	defer func(level int) { parallelLevel = level }(parallelLevel)
	parallelLevel = 2
	analysistest.WithParallelism(procs, fn)
}
