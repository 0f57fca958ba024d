package graph

import (
	"sync/atomic"

	"github.com/hprofctl/hprofctl/model"
)

// Reachable reports whether object i is in the dominator tree.
func (r *Retention) Reachable(i model.ObjectIndex) bool { return r.idom[i] != NotReached }

// ImmediateDominators is every object's immediate dominator, indexed by
// object: an object, VirtualRoot, or NotReached for the objects out of
// the tree. It is the Retention's own slice: callers must not change it.
func (r *Retention) ImmediateDominators() []model.ObjectIndex { return r.idom }

// ImmediateDominator returns the immediate dominator of reachable object
// i, NoObject when it is the virtual root.
func (r *Retention) ImmediateDominator(i model.ObjectIndex) model.ObjectIndex {
	return r.idom[i]
}

// RetainedBytes is the retained size of reachable object i: the shallow
// sizes of the objects it dominates, its own included.
func (r *Retention) RetainedBytes(i model.ObjectIndex) int64 {
	return r.retainedBytes.at(int(i))
}

// RetainsShareOf reports whether reachable object i retains at least
// share (0 < share ≤ 1) of what its immediate dominator d retains, d
// retaining more than nothing. Most objects retain too little for the
// dominator's size to matter: it is then told by its kept element alone,
// a lower bound, and only looked up in full when that does not decide.
func (r *Retention) RetainsShareOf(i, d model.ObjectIndex, share float64) bool {
	own := float64(r.retainedBytes.at(int(i)))
	floor := r.retainedBytes.floor(int(d))
	if floor == 0 || own < share*float64(floor) {
		return false
	}
	db := r.retainedBytes.at(int(d))
	return db > 0 && !(own < share*float64(db))
}

// RetainedObjects counts the objects reachable object i dominates, itself
// included.
func (r *Retention) RetainedObjects(i model.ObjectIndex) int64 {
	return r.retainedCount.at(int(i))
}

// ReachableObjects counts the objects in the tree.
func (r *Retention) ReachableObjects() int64 { return r.reachedObjects }

// ReachableBytes is the retained size of the virtual root: the shallow
// sizes of every object in the tree.
func (r *Retention) ReachableBytes() int64 { return r.reachedBytes }

// TopLevel lists the objects the virtual root immediately dominates, by
// index. They can be most of a heap's objects (half of a synthetic dump's),
// so they are counted first: the list is made once at its size, not grown
// through twice as much memory, which the Go heap holds outside an index
// build's budget.
func (r *Retention) TopLevel() []model.ObjectIndex {
	n := 0
	for _, d := range r.idom {
		if d == VirtualRoot {
			n++
		}
	}
	out := make([]model.ObjectIndex, 0, n)
	for t := range r.EachTopLevel {
		out = append(out, t)
	}
	return out
}

// EachTopLevel calls yield with each object the virtual root immediately
// dominates, by index, until yield returns false: TopLevel without the
// list, as a range-over-func iterator.
func (r *Retention) EachTopLevel(yield func(model.ObjectIndex) bool) {
	for i, d := range r.idom {
		if d == VirtualRoot && !yield(model.ObjectIndex(i)) {
			return
		}
	}
}

// RetainedTotal adds up the retained bytes of objs, objects none of which
// dominates another (so that no byte counts twice).
func (r *Retention) RetainedTotal(objs []model.ObjectIndex) int64 {
	var total int64
	for _, obj := range objs {
		total += r.RetainedBytes(obj)
	}
	return total
}

// TopLevelIn returns the reachable objects that s selects and that no
// other object s selects dominates: the top of the dominator tree as seen
// from the selected heaps. With every object selected it is TopLevel.
func (r *Retention) TopLevelIn(s model.HeapSelection) []model.ObjectIndex {
	if s.All() {
		return r.TopLevel()
	}
	// covered[i] is 1 when object i or one of its dominators is selected,
	// 2 when none is, 0 while unknown.
	covered := make([]uint8, len(r.idom))
	var chain []model.ObjectIndex
	state := func(i model.ObjectIndex) uint8 {
		for chain = chain[:0]; ; i = r.idom[i] {
			if i == VirtualRoot || i == NotReached {
				break
			}
			if covered[i] != 0 {
				break
			}
			if s.Has(i) {
				covered[i] = 1
				break
			}
			chain = append(chain, i)
		}
		v := uint8(2)
		if i != VirtualRoot && i != NotReached {
			v = covered[i]
		}
		for _, j := range chain {
			covered[j] = v
		}
		return v
	}
	var out []model.ObjectIndex
	for i, d := range r.idom {
		if d == NotReached || !s.Has(model.ObjectIndex(i)) {
			continue
		}
		if d == VirtualRoot || state(d) == 2 {
			out = append(out, model.ObjectIndex(i))
		}
	}
	return out
}

// Dominated returns, for each of the given reachable objects, the objects
// it immediately dominates, by index; one pass over the tree serves them
// all.
func (r *Retention) Dominated(parents []model.ObjectIndex) map[model.ObjectIndex][]model.ObjectIndex {
	out := make(map[model.ObjectIndex][]model.ObjectIndex, len(parents))
	wanted := NewObjectBits(len(r.idom))
	for _, i := range parents {
		wanted.Add(i)
	}
	for i, d := range r.idom {
		if d != VirtualRoot && d != NotReached && wanted.Has(d) {
			out[d] = append(out[d], model.ObjectIndex(i))
		}
	}
	return out
}

// ObjectBits is a set of objects, one bit each.
type ObjectBits []uint64

// NewObjectBits is an empty set of the objects below n.
func NewObjectBits(n int) ObjectBits { return make(ObjectBits, (n+63)/64) }

// Add puts object i in the set.
func (b ObjectBits) Add(i model.ObjectIndex) { b[i/64] |= 1 << (i % 64) }

// Has reports whether object i is in the set.
func (b ObjectBits) Has(i model.ObjectIndex) bool { return b[i/64]&(1<<(i%64)) != 0 }

// AddFirst puts object i in the set atomically, safe beside other
// goroutines' AddFirst, and reports whether it was not in it before: of
// goroutines adding the same object, exactly one is first.
func (b ObjectBits) AddFirst(i model.ObjectIndex) bool {
	bit := uint64(1) << (i % 64)
	return atomic.OrUint64(&b[i/64], bit)&bit == 0
}
