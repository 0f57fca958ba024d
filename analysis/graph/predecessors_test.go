package graph

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestPredecessorsByDefinition: on random heaps, with one and four
// goroutines, in memory and with every table a scratch file (a one-byte
// budget), the least predecessor numbered below each vertex and the
// list of those numbered above, gathered in one window of vertices or in
// windows of four, are what going through every edge of the retention
// graph once, one edge at a time, gives: every reference and
// class edge from a numbered object to a numbered one, as often as it
// is there; nothing for the virtual root's children, whose lowest is 0,
// nor for the edges to leaves. The objects marked as referencing a leaf
// are the numbered ones that do.
func TestPredecessorsByDefinition(t *testing.T) {
	var listed, leaves int
	for seed := range uint64(30) {
		h := analysistest.RandomHeap(t, seed)
		for _, procs := range []int{1, 4} {
			for _, budget := range []int64{0, 1} {
				for _, shift := range []uint{windowShift, 2} {
					name := fmt.Sprintf("seed %d, %d procs, budget %d, windows of 2^%d", seed, procs, budget, shift)
					withParallelism(procs, func() {
						restore := bigmem.SetBudget(budget, t.TempDir())
						defer restore()
						defer withWindowShift(shift)()
						l, f := checkPredecessors(t, name, h)
						listed += l
						leaves += f
					})
				}
			}
		}
	}
	if listed == 0 || leaves == 0 {
		t.Errorf("the heaps had %d predecessors listed and %d leaves: the test checks nothing", listed, leaves)
	}
}

// withWindowShift sets windowShift to shift and returns what restores it.
func withWindowShift(shift uint) (restore func()) {
	old := windowShift
	windowShift = shift
	return func() { windowShift = old }
}

// checkPredecessors checks the predecessors of h's retention graph
// against the definition, and returns how many were listed, and how many
// leaves the depth-first search marked.
func checkPredecessors(t *testing.T, name string, h *model.Heap) (listed, leaves int) {
	g := retentionGraph{h: h}
	n := h.NumObjects()
	order := make([]uint32, n)
	parent := make([]uint32, n+1)[:1]
	g.rootRefs = g.gcRoots()
	g.markRootChildren()
	vertices := []model.ObjectIndex{VirtualRoot}
	g.depthFirst(&vertices, &parent, g.rootRefs)
	numberObjects(order, vertices, g.leaf)
	lowest, starts, preds, err := g.predecessors(order, parent)
	if err != nil {
		t.Fatal(err)
	}
	wantLowest := slices.Clone(parent)
	wantLists := make([][]uint32, len(parent))
	for i := range n {
		from := order[i]
		if from == 0 || from == leafMark {
			continue
		}
		referencesLeaf := false
		g.forEachSucc(model.ObjectIndex(i), func(s model.ObjectIndex) {
			switch w := order[s]; {
			case w == 0:
				t.Fatalf("%s: object %d is reached from %d but has no number", name, s, i)
			case w == leafMark:
				referencesLeaf = true
			case from < w:
				wantLowest[w] = min(wantLowest[w], from)
			case from > w:
				wantLists[w] = append(wantLists[w], from)
			}
		})
		if isLeafObject(g.leafReferrers, i) != referencesLeaf {
			t.Errorf("%s: object %d references a leaf: %v, marked: %v", name, i, referencesLeaf, !referencesLeaf)
		}
	}
	for i := range n {
		if (order[i] == 0 || order[i] == leafMark) && isLeafObject(g.leafReferrers, i) {
			t.Errorf("%s: object %d, unnumbered, is marked as referencing a leaf", name, i)
		}
	}
	for _, s := range g.rootRefs {
		wantLowest[order[s]] = 0
		wantLists[order[s]] = nil
	}
	for w := 1; w < len(parent); w++ {
		got := slices.Clone(preds[starts[2*w-2]:starts[2*w]])
		slices.Sort(got)
		slices.Sort(wantLists[w])
		if lowest[w] != wantLowest[w] || !slices.Equal(got, wantLists[w]) {
			t.Errorf("%s: vertex %d: lowest %d, later %v; want %d, %v", name, w, lowest[w], got, wantLowest[w], wantLists[w])
		}
		listed += len(got)
	}
	if listed != len(preds) || starts[0] != 0 || starts[2*len(parent)-2] != uint32(len(preds)) {
		t.Errorf("%s: %d predecessors listed of %d, from %d to %d", name, listed, len(preds), starts[0], starts[2*len(parent)-2])
	}
	bigmem.Free(g.leafReferrers)
	return listed, g.leaves
}
