package threads

import (
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionThreadEdges is the index section a ThreadEdgeList is kept in.
const SectionThreadEdges = "threads.contracted-edges"

// ThreadEdgeList is the edges of the contracted graph of a dominator
// tree's top-level subtrees (see contractedEdges), sorted, once each, as
// top<<32 | target; what `threads --retained` spreads the threads'
// labels over, found once for the index.
type ThreadEdgeList struct {
	edges []uint64
	// idom is the tree they were found in.
	idom []model.ObjectIndex
}

// of reports whether l holds the edges of r's tree.
func (l *ThreadEdgeList) of(r *graph.Retention) bool {
	idom := r.ImmediateDominators()
	return l != nil && len(l.idom) == len(idom) && (len(idom) == 0 || &l.idom[0] == &idom[0])
}

// WriteThreadEdges writes l into the index w.
func WriteThreadEdges(w *store.Writer, l *ThreadEdgeList) error {
	return store.WriteArray(w, SectionThreadEdges, l.edges)
}

// ReadThreadEdges reads the edges that WriteThreadEdges wrote into ix for
// heap h and its dominator tree r read from the same index; nil when the
// index keeps none. Every edge joins two objects of h, and the list is
// sorted without repeats.
func ReadThreadEdges(ix *store.Index, h *model.Heap, r *graph.Retention) (*ThreadEdgeList, error) {
	if _, ok := ix.Section(SectionThreadEdges); !ok {
		return nil, nil
	}
	edges, err := store.Array[uint64](ix, SectionThreadEdges)
	if err != nil {
		return nil, err
	}
	n := uint64(h.NumObjects())
	for k, e := range edges {
		if e>>32 >= n || uint64(uint32(e)) >= n || k > 0 && e <= edges[k-1] {
			return nil, fmt.Errorf("%w: thread edge %d (%d to %d) does not join two of %d objects in order",
				store.ErrCorrupt, k, e>>32, uint32(e), n)
		}
	}
	return &ThreadEdgeList{edges: edges, idom: r.ImmediateDominators()}, nil
}
