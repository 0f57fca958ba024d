package heap

import (
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionAccumulationPoints is the index section AccumulationPoints are
// kept in: three uint32 per object, the object, where its walk ends and
// the walk's depth, by object.
const SectionAccumulationPoints = "leaks.accumulation-points"

// pointsShare is the least share of the reachable heap that an object at
// the top of the dominator tree retains for AccumulationPoints to keep
// its walk: the smallest threshold of leaks (0.01%), so that at most
// 10,000 objects are kept.
const pointsShare = 0.0001

// AccumulationPoints are the accumulation walks (see accumulationPoints)
// from the objects the virtual root dominates that retain at least
// pointsShare of the reachable heap, worked out once for the index: the
// suspects of leaks then need no pass over every object to find their
// accumulation points. A walk deeper than accumulationDepth is kept as
// where it is at that depth.
type AccumulationPoints struct {
	walks map[model.ObjectIndex]walkEnd
	// r is the dominator tree, with its retained sizes, they were found
	// in.
	r *graph.Retention
}

// SummarizeAccumulation works out the AccumulationPoints of r.
func SummarizeAccumulation(r *graph.Retention) *AccumulationPoints {
	floor := pointsShare * float64(r.ReachableBytes())
	var tops []model.ObjectIndex
	for t := range r.EachTopLevel {
		if float64(r.RetainedBytes(t)) >= floor {
			tops = append(tops, t)
		}
	}
	walks := accumulationEnds(r, tops)
	for t, e := range walks {
		if e.depth > accumulationDepth {
			for range e.depth - accumulationDepth {
				e.end = r.ImmediateDominator(e.end)
			}
			walks[t] = walkEnd{end: e.end, depth: accumulationDepth}
		}
	}
	return &AccumulationPoints{walks: walks, r: r}
}

// of returns the accumulation points of tops when a holds them all for
// r; false when it does not (nil, another tree or sizes, a top it lacks).
func (a *AccumulationPoints) of(r *graph.Retention, tops []model.ObjectIndex) (map[model.ObjectIndex]model.ObjectIndex, bool) {
	if a == nil || a.r != r {
		return nil, false
	}
	out := make(map[model.ObjectIndex]model.ObjectIndex, len(tops))
	for _, t := range tops {
		e, ok := a.walks[t]
		if !ok {
			return nil, false
		}
		out[t] = e.point()
	}
	return out, true
}

// WriteAccumulationPoints writes a into the index w.
func WriteAccumulationPoints(w *store.Writer, a *AccumulationPoints) error {
	tops := make([]model.ObjectIndex, 0, len(a.walks))
	for t := range a.walks {
		tops = append(tops, t)
	}
	slices.Sort(tops)
	data := make([]uint32, 0, 3*len(tops))
	for _, t := range tops {
		e := a.walks[t]
		data = append(data, uint32(t), uint32(e.end), uint32(e.depth))
	}
	return store.WriteArray(w, SectionAccumulationPoints, data)
}

// ReadAccumulationPoints reads the points that WriteAccumulationPoints
// wrote into ix for the dominator tree r read from the same index (whose
// counts were checked: graph.Retention.CheckIndexed); nil when the index
// keeps none. What they say is checked against r: each object is one the
// virtual root dominates, once; each walk climbs back to it from its end
// by its depth's steps, each into a child that keeps accumulationRatio
// of its dominator's retained size; and a walk that ends above
// accumulationDepth ends where no child keeps that much, which takes one
// pass over the tree. A fault wraps store.ErrCorrupt.
func ReadAccumulationPoints(ix *store.Index, r *graph.Retention) (*AccumulationPoints, error) {
	if _, ok := ix.Section(SectionAccumulationPoints); !ok {
		return nil, nil
	}
	data, err := store.Array[uint32](ix, SectionAccumulationPoints)
	if err != nil {
		return nil, err
	}
	if len(data)%3 != 0 {
		return nil, fmt.Errorf("%w: %s holds %d numbers, not three per object", store.ErrCorrupt, SectionAccumulationPoints, len(data))
	}
	idom := r.ImmediateDominators()
	n := model.ObjectIndex(len(idom))
	walks := make(map[model.ObjectIndex]walkEnd, len(data)/3)
	for k := 0; k < len(data); k += 3 {
		top, end, depth := model.ObjectIndex(data[k]), model.ObjectIndex(data[k+1]), data[k+2]
		if _, twice := walks[top]; top >= n || end >= n || depth > accumulationDepth || idom[top] != graph.VirtualRoot || twice {
			return nil, fmt.Errorf("%w: accumulation walk %d (from object %d to %d, %d deep) is not one of a top object of %d",
				store.ErrCorrupt, k/3, top, end, depth, n)
		}
		if err := climbWalk(r, top, end, int(depth)); err != nil {
			return nil, err
		}
		walks[top] = walkEnd{end: end, depth: int(depth)}
	}
	if err := checkWalksEnd(r, walks); err != nil {
		return nil, err
	}
	return &AccumulationPoints{walks: walks, r: r}, nil
}

// climbWalk checks that the accumulation walk from top reaches end in
// depth steps, climbing from end.
func climbWalk(r *graph.Retention, top, end model.ObjectIndex, depth int) error {
	x := end
	for range depth {
		d := r.ImmediateDominator(x)
		if d == graph.VirtualRoot || d == graph.NotReached || !r.RetainsShareOf(x, d, accumulationRatio) {
			return fmt.Errorf("%w: the accumulation walk from object %d to %d does not step into %d", store.ErrCorrupt, top, end, x)
		}
		x = d
	}
	if x != top {
		return fmt.Errorf("%w: the accumulation walk to object %d, %d deep, starts at %d, not %d", store.ErrCorrupt, end, depth, x, top)
	}
	return nil
}

// checkWalksEnd checks, in one pass over the tree, that no walk of walks
// that ends above accumulationDepth could go on: its end has no child
// that keeps accumulationRatio of it. A filter of 64 Ki bits, which
// stays in the cache, spares most objects the look-up of their dominator
// among the ends.
func checkWalksEnd(r *graph.Retention, walks map[model.ObjectIndex]walkEnd) error {
	const filterBits = 1 << 16
	var filter [filterBits / 64]uint64
	ends := make(map[model.ObjectIndex]model.ObjectIndex, len(walks))
	for top, e := range walks {
		if e.depth < accumulationDepth {
			ends[e.end] = top
			filter[e.end%filterBits/64] |= 1 << (e.end % 64)
		}
	}
	if len(ends) == 0 {
		return nil
	}
	for i, d := range r.ImmediateDominators() {
		if filter[d%filterBits/64]&(1<<(d%64)) == 0 {
			continue
		}
		if top, ok := ends[d]; ok && r.RetainsShareOf(model.ObjectIndex(i), d, accumulationRatio) {
			return fmt.Errorf("%w: the accumulation walk from object %d ends at %d, which object %d keeps most of", store.ErrCorrupt, top, d, i)
		}
	}
	return nil
}
