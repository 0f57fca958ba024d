package heap

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// TestAccumulationSummaryMatchesWalk: the accumulation points an index
// keeps for the objects at the top of the dominator tree of random graphs
// are those the walk the definition describes gives over the tree
// naiveDominators gives with child lists, for every such object that
// retains something.
func TestAccumulationSummaryMatchesWalk(t *testing.T) {
	left := 0
	for seed := range uint64(30) {
		w := newWalkedGraph(t, seed)
		summary := SummarizeAccumulation(w.r)
		left += w.check(t, fmt.Sprintf("seed %d: top", seed), w.tops, func(objs []model.ObjectIndex) map[model.ObjectIndex]model.ObjectIndex {
			got, ok := summary.of(w.r, objs)
			if !ok {
				t.Fatalf("seed %d: the summary lacks some of the %d objects at the top", seed, len(objs))
			}
			return got
		})
	}
	if left < 10 {
		t.Errorf("only %d walks left their start: the graphs test little", left)
	}
}

// TestAccumulationSummaryDeepChains: linked lists of n Links of 8 field
// bytes (node k retains 8(n−k); the walk goes down to node n−3): the
// points an index keeps, written and read back, say node n−3 for a walk
// of up to accumulationDepth steps and none for a deeper one, which is
// kept as where it is at that depth.
func TestAccumulationSummaryDeepChains(t *testing.T) {
	for _, n := range []int{10, accumulationDepth + 2, accumulationDepth + 3, accumulationDepth + 500} {
		h, ids := linkedList(t, n)
		r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
		if err != nil {
			t.Fatal(err)
		}
		kr, read := writePoints(t, h, r, SummarizeAccumulation(r))
		head, _ := h.Lookup(uint64(ids[0]))
		got, ok := read.of(kr, []model.ObjectIndex{head})
		want := model.NoObject
		if n-3 < accumulationDepth {
			want, _ = h.Lookup(uint64(ids[n-3]))
		}
		if !ok || got[head] != want {
			t.Errorf("%d nodes: point %d (%v), want %d", n, got[head], ok, want)
		}
		if kept := read.walks[head]; n-3 >= accumulationDepth && (h.ObjectID(kept.end) != uint64(ids[accumulationDepth]) || kept.depth != accumulationDepth) {
			t.Errorf("%d nodes: the walk is kept as %+v, want node %d at depth %d", n, kept, accumulationDepth, accumulationDepth)
		}
	}
}

// writePoints writes r and a into a new index and reads them back.
func writePoints(t *testing.T, h *model.Heap, r *graph.Retention, a *AccumulationPoints) (*graph.Retention, *AccumulationPoints) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x"+store.Suffix)
	id := store.Identity{Content: 1}
	w, err := store.Create(path, id, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := graph.WriteIndex(w, r, graph.StrongPaths(h)); err != nil {
		t.Fatal(err)
	}
	if err := WriteAccumulationPoints(w, a); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ix, err := store.Open(path, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	kr, _, err := graph.ReadIndex(ix, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.CheckIndexed(); err != nil {
		t.Fatal(err)
	}
	read, err := ReadAccumulationPoints(ix, kr)
	if err != nil {
		t.Fatal(err)
	}
	return kr, read
}

// TestLeaksFromSummaryAsComputed: on dumps of real JVMs, the suspects
// found with the points an index keeps are those found by the pass over
// the tree, at the smallest threshold, 1% and the default 10%.
func TestLeaksFromSummaryAsComputed(t *testing.T) {
	for _, name := range summaryFixtures {
		t.Run(name, func(t *testing.T) {
			h, _ := testload.Fixture(t, name)
			r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeJVM})
			if err != nil {
				t.Fatal(err)
			}
			points := SummarizeAccumulation(r)
			singles := 0
			for _, threshold := range []float64{0.0001, 0.01, 0.1} {
				o := LeakOptions{Threshold: threshold, Classes: 3}
				want := FindLeaks(h, r, o)
				var big []model.ObjectIndex
				for _, top := range r.TopLevel() {
					if float64(r.RetainedBytes(top)) > threshold*float64(r.ReachableBytes()) {
						big = append(big, top)
					}
				}
				if _, ok := points.of(r, big); !ok {
					t.Errorf("threshold %g: the summary lacks some of the %d objects above it", threshold, len(big))
				}
				o.Points = points
				got := FindLeaks(h, r, o)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("threshold %g: from the summary %+v\ncomputed %+v", threshold, got.Suspects, want.Suspects)
				}
				for _, s := range want.Suspects {
					if s.ObjectID != "" {
						singles++
					}
				}
			}
			if singles == 0 {
				t.Error("no single suspect: the points went unused")
			}
		})
	}
}
