package analysis

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/hprofctl/hprofctl/model"
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
			if c := chainTo(parent, u); !slices.Contains(c, t) {
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
		h := randomHeap(t, seed)
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
	h := randomHeap(t, 5)
	parent := shortestPathTree(h, false)
	d := newTreeDepths(parent)
	for i := h.NumObjects() - 1; i >= 0; i-- {
		if parent[i] != noParent {
			if got, want := d.of(model.ObjectIndex(i)), len(chainTo(parent, model.ObjectIndex(i)))-1; got != want {
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
