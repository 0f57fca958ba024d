package graph

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// everyRetainerPaths is ShortestPaths for object targets by its
// definition: a path through each reached last retainer (each retention
// graph predecessor once, in object order, then each referent edge with
// IncludeWeak) whose own path does not pass through the target, and the
// target alone when it is a root; the first paths of them by length, ties
// in that order.
func everyRetainerPaths(h *model.Heap, o RetainerOptions) [][]model.ObjectIndex {
	parent := shortestPathTree(h, o.IncludeWeak)
	last := map[model.ObjectIndex][]model.ObjectIndex{}
	for i := range h.NumObjects() {
		u := model.ObjectIndex(i)
		if parent[u] == noParent {
			continue
		}
		succ := serialSuccessors(h, u)
		for k, s := range succ {
			if s != u && !slices.Contains(succ[:k], s) {
				last[s] = append(last[s], u)
			}
		}
		if o.IncludeWeak {
			for _, w := range h.Referents() {
				if w.From == u {
					last[w.To] = append(last[w.To], u)
				}
			}
		}
	}
	var out [][]model.ObjectIndex
	for _, t := range o.Objects {
		if parent[t] == noParent {
			continue
		}
		var chains [][]model.ObjectIndex
		if parent[t] == rootParent {
			chains = append(chains, []model.ObjectIndex{t})
		}
		for _, u := range last[t] {
			if c := chainTo(plainParents(parent), u); !slices.Contains(c, t) {
				chains = append(chains, append(c, t))
			}
		}
		sort.SliceStable(chains, func(a, b int) bool { return len(chains[a]) < len(chains[b]) })
		out = append(out, chains[:min(max(o.Paths, 1), len(chains))]...)
	}
	return out
}

// TestShortestPathsMatchesEveryRetainer compares ShortestPaths, which
// ranks the last retainers by their depths before making any path, with
// the paths through every last retainer ranked by length, on random
// heaps, with and without referents, for one and three paths per target.
func TestShortestPathsMatchesEveryRetainer(t *testing.T) {
	for seed := range uint64(15) {
		h := analysistest.RandomHeap(t, seed)
		var objs []model.ObjectIndex
		for i := 0; i < h.NumObjects(); i += 11 {
			objs = append(objs, model.ObjectIndex(i))
		}
		for _, weak := range []bool{false, true} {
			for _, paths := range []int{1, 3} {
				o := RetainerOptions{Objects: objs, Paths: paths, IncludeWeak: weak}
				got := ShortestPaths(h, o).Chains
				want := everyRetainerPaths(h, o)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("seed %d, weak %v, %d paths: %s", seed, weak, paths, firstDifference(got, want))
				}
			}
		}
	}
}

// TestTreeDepths checks the memoized depths against the lengths of the
// tree's paths, asked in an order that climbs onto known depths.
func TestTreeDepths(t *testing.T) {
	h := analysistest.RandomHeap(t, 5)
	parent := shortestPathTree(h, false)
	d := newTreeDepths(plainParents(parent))
	for i := h.NumObjects() - 1; i >= 0; i-- {
		if parent[i] != noParent {
			if got, want := d.of(model.ObjectIndex(i)), len(chainTo(plainParents(parent), model.ObjectIndex(i)))-1; got != want {
				t.Fatalf("object %d: depth %d, want %d", i, got, want)
			}
		}
	}
}

// firstDifference describes where two lists of paths first differ.
func firstDifference(got, want [][]model.ObjectIndex) string {
	for k := range min(len(got), len(want)) {
		if !slices.Equal(got[k], want[k]) {
			return fmt.Sprintf("path %d is %v, want %v", k, got[k], want[k])
		}
	}
	return fmt.Sprintf("%d paths, want %d", len(got), len(want))
}

// TestTreePaths checks PathTree.Paths on random heaps: each path runs
// from a GC root along retention graph edges, its steps are the tree's
// parents, and it is as short as the shortest ShortestPaths finds.
func TestTreePaths(t *testing.T) {
	for seed := range uint64(20) {
		h := analysistest.RandomHeap(t, seed)
		tree := StrongPaths(h)
		roots := map[model.ObjectIndex]bool{}
		g := retentionGraph{h: h}
		for _, s := range g.gcRoots() {
			roots[s] = true
		}
		var objs []model.ObjectIndex
		for i := 0; i < h.NumObjects(); i += 7 {
			objs = append(objs, model.ObjectIndex(i))
		}
		got, err := tree.Paths(objs)
		if err != nil {
			t.Fatal(err)
		}
		want := ShortestPaths(h, RetainerOptions{Objects: objs, Paths: 1})
		if got.Targets != want.Targets || got.Unreached != want.Unreached || len(got.Chains) != len(want.Chains) {
			t.Fatalf("seed %d: %d targets, %d unreached, %d paths; want %d, %d, %d", seed,
				got.Targets, got.Unreached, len(got.Chains), want.Targets, want.Unreached, len(want.Chains))
		}
		for k, c := range got.Chains {
			w := want.Chains[k]
			if c[len(c)-1] != w[len(w)-1] || len(c) != len(w) || !roots[c[0]] || got.Objects[k] != 1 {
				t.Errorf("seed %d: path %v, want one as long as %v from a root", seed, c, w)
			}
			for s := 1; s < len(c); s++ {
				if !slices.Contains(serialSuccessors(h, c[s-1]), c[s]) || tree.parent.at(c[s]) != uint32(c[s-1]) {
					t.Errorf("seed %d: path %v: step %d is no tree edge", seed, c, s)
				}
			}
		}
	}
}

// TestTreePathsCorrupt: a tree whose parents run in a cycle or out of
// the heap is a corrupt index, not a hang or a panic.
func TestTreePathsCorrupt(t *testing.T) {
	for name, parent := range map[string][]uint32{
		"cycle":        {rootParent, 2, 3, 1},
		"out of range": {rootParent, 0, 9, 2},
		"unreached":    {rootParent, 0, noParent, 2},
	} {
		if _, err := (&PathTree{parent: plainParents(parent)}).Paths([]model.ObjectIndex{0, 3}); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: error %v, want a corrupt index", name, err)
		}
	}
	got, err := (&PathTree{parent: plainParents([]uint32{rootParent, 0, noParent, 1})}).Paths([]model.ObjectIndex{3, 2, 0})
	if err != nil || got.Targets != 3 || got.Unreached != 1 || len(got.Chains) != 2 ||
		!slices.Equal(got.Chains[0], []model.ObjectIndex{0, 1, 3}) || !slices.Equal(got.Chains[1], []model.ObjectIndex{0}) {
		t.Errorf("paths %+v, %v; want 0-1-3 and 0 of 3 targets, 1 unreached", got, err)
	}
}

// TestObjectBitsAddFirstOnce adds the same objects from several
// goroutines at once: each object is reported first exactly once, and is
// in the set afterwards.
func TestObjectBitsAddFirstOnce(t *testing.T) {
	const n, adders = 1000, 8
	bits := NewObjectBits(n)
	firsts := make([][]int, adders)
	var wg sync.WaitGroup
	for a := range adders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			firsts[a] = make([]int, n)
			for i := range n {
				if bits.AddFirst(model.ObjectIndex(i)) {
					firsts[a][i]++
				}
			}
		}()
	}
	wg.Wait()
	for i := range n {
		count := 0
		for a := range adders {
			count += firsts[a][i]
		}
		if count != 1 || !bits.Has(model.ObjectIndex(i)) {
			t.Errorf("object %d: first %d times, in the set %v; want once, true", i, count, bits.Has(model.ObjectIndex(i)))
		}
	}
}

// TestShown splits chains around MaxShownObjects: whole up to it, else
// the first and last ShownEnds objects around those left out; the steps
// and sources named for labeling are those of what is shown, the step
// into the tail coming from the last object left out.
func TestShown(t *testing.T) {
	chain := func(n int) []model.ObjectIndex {
		c := make([]model.ObjectIndex, n)
		for i := range c {
			c[i] = model.ObjectIndex(i)
		}
		return c
	}
	for _, n := range []int{1, 2, MaxShownObjects, MaxShownObjects + 1, 1000} {
		c := chain(n)
		head, left, tail := Shown(c)
		if n <= MaxShownObjects {
			if len(head) != n || left != nil || tail != nil {
				t.Errorf("%d objects: %d, %d, %d shown, left, tail; want all shown", n, len(head), len(left), len(tail))
			}
			continue
		}
		if len(head) != ShownEnds || len(tail) != ShownEnds || !slices.Equal(slices.Concat(head, left, tail), c) {
			t.Errorf("%d objects: %d, %d, %d; want %d at each end around the rest, in order", n, len(head), len(left), len(tail), ShownEnds)
		}
		p := RetainerPaths{Chains: [][]model.ObjectIndex{c}, Objects: []int64{1}}
		steps := p.Steps()
		last := model.ObjectIndex(n - ShownEnds - 1) // the last object left out
		if len(steps) != 2*ShownEnds-1 || !slices.Equal(steps[last], []model.ObjectIndex{last + 1}) || steps[ShownEnds-1] != nil {
			t.Errorf("%d objects: steps from %d sources, from %d: %v, from %d: %v; want %d, the tail's first, none", n, len(steps), last, steps[last], ShownEnds-1, steps[ShownEnds-1], 2*ShownEnds-1)
		}
	}
}
