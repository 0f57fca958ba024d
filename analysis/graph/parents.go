package graph

import (
	"math/bits"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// parents is a shortest path tree's parent of each object: noParent for
// an object no root reaches, rootParent for a root. A tree computed now
// holds them in a slice; a tree read from an index keeps only those that
// differ from the object's immediate dominator (keptParents).
type parents struct {
	slice []uint32
	kept  *keptParents
}

// plainParents is the tree held in slice.
func plainParents(slice []uint32) parents { return parents{slice: slice} }

// at is object x's parent.
func (p parents) at(x model.ObjectIndex) uint32 {
	if p.kept == nil {
		return p.slice[x]
	}
	return p.kept.at(x)
}

// same reports whether p and q are one tree, not only equal ones.
func (p parents) same(q parents) bool {
	if p.kept != nil || q.kept != nil {
		return p.kept == q.kept
	}
	return len(p.slice) > 0 && len(p.slice) == len(q.slice) && &p.slice[0] == &q.slice[0]
}

// len is the number of objects.
func (p parents) len() int {
	if p.kept == nil {
		return len(p.slice)
	}
	return len(p.kept.idom)
}

// keptParents is a shortest path tree kept beside a dominator tree of the
// same graph. An object's parent on a shortest path is nearly always its
// immediate dominator (always when one object references it), so the
// tree is kept as the dominators (the same array) and the exceptions: a
// bit per object marks those whose parent is another, and those parents
// follow in object order.
type keptParents struct {
	idom    []model.ObjectIndex
	differs []uint64 // bit i mod 64 of word i/64: object i's parent is in other
	before  []uint32 // per word of differs: the bits set in the words before it
	other   []uint32
}

// parentOfDominator is the parent that an object whose immediate
// dominator is d has when the two agree: the marks of the two trees
// differ (no root reaches it, it is a root).
func parentOfDominator(d model.ObjectIndex) uint32 {
	switch d {
	case NotReached:
		return noParent
	case VirtualRoot:
		return rootParent
	}
	return uint32(d)
}

func (k *keptParents) at(x model.ObjectIndex) uint32 {
	w, bit := x/64, uint64(1)<<(x%64)
	if k.differs[w]&bit == 0 {
		return parentOfDominator(k.idom[x])
	}
	return k.other[int(k.before[w])+bits.OnesCount64(k.differs[w]&(bit-1))]
}

// newKeptParents indexes the exceptions differs and other over the
// dominators idom: it reports false when they do not fit together (as
// many parents as bits set, no bit past the objects), which only a
// damaged index can cause.
func newKeptParents(idom []model.ObjectIndex, differs []uint64, other []uint32) (*keptParents, bool) {
	n := len(idom)
	if len(differs) != (n+63)/64 || n%64 != 0 && len(differs) > 0 && differs[len(differs)-1]>>(n%64) != 0 {
		return nil, false
	}
	before := make([]uint32, len(differs))
	count := 0
	for w, word := range differs {
		before[w] = uint32(count)
		count += bits.OnesCount64(word)
	}
	if count != len(other) {
		return nil, false
	}
	return &keptParents{idom: idom, differs: differs, before: before, other: other}, true
}

// parentExceptions returns what keptParents keeps of the tree parent
// beside the dominators idom: the bits of the objects whose parent
// differs, and those parents in object order; both are tables from
// model/bigmem, for the caller to free.
func parentExceptions(parent []uint32, idom []model.ObjectIndex) (differs []uint64, other []uint32) {
	const step = 1 << 16 // a multiple of 64
	differs = bigmem.Make[uint64]((len(parent) + 63) / 64)
	var stepOther []uint32 // the parents of a step that differ
	for lo := 0; lo < len(parent); lo += step {
		stepOther = stepOther[:0]
		for i := lo; i < min(lo+step, len(parent)); i++ {
			if p := parent[i]; p != parentOfDominator(idom[i]) {
				differs[i/64] |= 1 << (i % 64)
				stepOther = append(stepOther, p)
			}
		}
		other = bigmem.Append(other, stepOther...)
	}
	return differs, other
}
