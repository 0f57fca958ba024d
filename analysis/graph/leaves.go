package graph

import (
	"math"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// Leaves of the retention graph: objects that reference nothing but,
// perhaps, a child of the virtual root (their class object, when it is a
// system class or a GC root), and are no child of the virtual root
// themselves — most primitive arrays, a large share of a heap's objects.
// Such an edge changes no dominator: whatever path goes through it, the
// virtual root reaches its target directly. So a leaf dominates nothing,
// and its immediate dominator is the nearest common dominator of the
// objects that reference it. The depth-first walk marks leaves reached
// instead of numbering them, which keeps them out of the walk, of the
// predecessor table and of the semidominator pass; leafDominators then
// finds their immediate dominators from the tree of the others.

// leafMark is the order of a leaf the walk reached, until leafDominators
// replaces it with the preorder number of the leaf's immediate dominator;
// no preorder number reaches it (ComputeRetention refuses heaps of
// 2^32 − 1 objects or more).
const leafMark = math.MaxUint32

// markRootChildren sets the bit of every object of rootRefs in rootChild,
// and makes the bitsets of the leaves and of the objects seen, empty.
func (g *retentionGraph) markRootChildren() {
	words := (g.h.NumObjects() + 63) / 64
	g.rootChild = bigmem.Make[uint64](words)
	g.leaf = bigmem.Make[uint64](words)
	g.seen = bigmem.Make[uint64](words)
	for _, s := range g.rootRefs {
		g.rootChild[s/64] |= 1 << (s % 64)
	}
}

// isRootChild reports whether the virtual root references object i.
func (g *retentionGraph) isRootChild(i model.ObjectIndex) bool {
	return g.rootChild != nil && g.rootChild[i/64]&(1<<(i%64)) != 0
}

// isLeaf reports whether object i, not reached yet, is a leaf.
func (g *retentionGraph) isLeaf(i model.ObjectIndex) bool {
	return g.rootChild != nil && len(g.h.Refs(i)) == 0 && !g.isRootChild(i) && g.isRootChild(g.classObjectOrRoot(i))
}

// classObjectOrRoot is the class object of object i's class, or, when the
// dump lacks it, a stand-in that counts as a child of the virtual root:
// an object without a class object has no edge to one.
func (g *retentionGraph) classObjectOrRoot(i model.ObjectIndex) model.ObjectIndex {
	if c := g.classObject(i); c != model.NoObject {
		return c
	}
	return g.rootRefs[0]
}

// markLeaf marks object s, not seen yet, as a reached leaf (and seen)
// when it is one, and reports whether it was.
func (g *retentionGraph) markLeaf(s model.ObjectIndex) bool {
	if len(g.rootRefs) == 0 || !g.isLeaf(s) {
		return false
	}
	g.seen.Add(s)
	g.leaf[s/64] |= 1 << (s % 64)
	g.leaves++
	return true
}

// isLeafObject reports whether object i was marked a leaf.
func isLeafObject(leaf []uint64, i int) bool {
	return leaf != nil && leaf[i/64]&(1<<(i%64)) != 0
}

// leafDominators gives every reached leaf, in order, the preorder number
// of its immediate dominator: the nearest common ancestor, in the tree of
// idom (by preorder numbers, each one's dominator numbered below it), of
// the numbered objects that reference it (a leaf may be a class object:
// its instances' class edges count). The references of the objects that
// predecessors marked in g.leafReferrers are gone through in ranges side
// by side, each leaf's candidate met atomically: the nearest
// common ancestor of a set does not depend on the order its members come
// in. jump, as long as idom and free to overwrite, keeps shortcuts up the
// tree (see climb).
func (g *retentionGraph) leafDominators(order, idom, jump []uint32) {
	parallel.ForChunks(len(idom), parallel.ObjectChunk, func(_, lo, hi int) {
		copy(jump[lo:hi], idom[lo:hi])
	})
	c := climber{idom: idom, jump: jump}
	meet := func(from uint32, s model.ObjectIndex) {
		p := &order[s]
		for {
			cur := atomic.LoadUint32(p)
			next := from
			switch {
			case cur == 0:
				return
			case cur != leafMark:
				next = c.nearest(cur, from)
			}
			if next == cur || atomic.CompareAndSwapUint32(p, cur, next) {
				return
			}
		}
	}
	// A leaf's order is its candidate, which meet changes atomically
	// meanwhile; the objects gone through are no leaves.
	forEachMarked(g.leafReferrers, func(_, i int) {
		from := order[i]
		g.forEachSucc(model.ObjectIndex(i), func(s model.ObjectIndex) {
			if isLeafObject(g.leaf, int(s)) {
				meet(from, s)
			}
		})
	})
}

// climber finds nearest common ancestors in a tree given by idom over
// preorder numbers, where every ancestor is numbered below its
// descendants. jump[x] is an ancestor of x (at first its parent) that a
// climb moved x's later climbs up to: like the path compression of a
// union-find, it keeps a leaf referenced by every node of a long chain
// from climbing the chain once per node.
type climber struct {
	idom, jump []uint32
}

// climb returns the first ancestor of x, x included, numbered at most
// limit, and points the jumps of the nodes it passed at it. A jump is
// taken only when it does not pass limit, so the answer is the one that
// climbing parent by parent gives; the jumps are read and written
// atomically by climbs side by side, each one some ancestor of its node.
func (c climber) climb(x, limit uint32) uint32 {
	next := func(y uint32) uint32 {
		if j := atomic.LoadUint32(&c.jump[y]); j >= limit && j < y {
			return j
		}
		return c.idom[y]
	}
	top := x
	for top > limit {
		top = next(top)
	}
	for y := x; y > top; {
		n := next(y)
		atomic.StoreUint32(&c.jump[y], top)
		y = n
	}
	return top
}

// nearest returns the nearest common ancestor of a and b.
func (c climber) nearest(a, b uint32) uint32 {
	for a != b {
		if a > b {
			a = c.climb(a, b)
		} else {
			b = c.climb(b, a)
		}
	}
	return a
}
