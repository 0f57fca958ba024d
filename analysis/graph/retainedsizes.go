package graph

import (
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// keepTree turns the immediate dominators by preorder number that the
// computation leaves (idom) into the results by object, and adds up the
// retained counts and sizes; order is each object's preorder number, or
// for the objects leaf marks, its immediate dominator's. It takes both
// tables over: order becomes the immediate dominators by object, and
// idom is freed before the retained sizes are allocated, so that the
// tree never holds more than four tables the size of the heap's objects.
// The passes by object run on every processor; adding up, one pass
// bottom-up, on one. dominated, when not nil, is given the immediate
// dominators by object as soon as they are final.
func (r *Retention) keepTree(order, idom []uint32, leaf []uint64, dominated func([]model.ObjectIndex)) {
	n := r.heap.NumObjects()
	vertex := bigmem.Make[model.ObjectIndex](len(idom))
	defer bigmem.Free(vertex)
	numberedVertices(vertex, order, leaf)
	// Each object's immediate dominator depends on its own order only, so
	// it replaces that in place.
	parallel.ForChunks(n, parallel.ObjectChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			switch p := order[i]; {
			case isLeafObject(leaf, i):
				order[i] = uint32(vertex[p])
			case p == 0:
				order[i] = uint32(NotReached)
			default:
				order[i] = uint32(vertex[idom[p]])
			}
		}
	})
	bigmem.Free(idom)
	r.idom = objectIndexes(order)
	if dominated != nil {
		dominated(r.idom)
	}
	count := bigmem.Make[uint32](n)
	r.retainedBytes = r.ownSizes()
	// The leaves dominate nothing: they are added into their dominators
	// first, side by side; then the reverse preorder lists every other
	// object after those it dominates.
	leafObjects, leafBytes := r.addLeaves(r.retainedBytes, count, leaf)
	r.reachedObjects, r.reachedBytes = r.addUp(r.retainedBytes, count, func(visit func(model.ObjectIndex)) {
		for p := len(vertex) - 1; p > 0; p-- {
			visit(vertex[p])
		}
	})
	r.reachedObjects += leafObjects
	r.reachedBytes += leafBytes
	r.retainedCount = retainedCounts{slice: count}
}

// ownSizes returns retained sizes that are each object of the tree's own
// shallow size in r's size mode, worked out on every processor: adding
// up what each object retains (addLeaves, addUp) then only adds.
func (r *Retention) ownSizes() retainedSizes {
	own := r.newOwnSizer()
	parallel.ForChunks(len(r.idom), parallel.ObjectChunk, func(w, lo, hi int) { own.set(w, lo, hi, r.idom) })
	return own.done()
}

// ownSizer sets objects' retained sizes to their own shallow sizes,
// a range of objects at a time (set), on several processors.
type ownSizer struct {
	bytes retainedSizes
	sizes func(lo, hi int, own []int64)
	// own holds each worker's shallow sizes of its range; large, the
	// objects of 4 GiB or more each worker met.
	own   [][]int64
	large [][]model.ObjectIndex
}

// newOwnSizer returns a sizer of r's objects in r's size mode, no
// size set yet.
func (r *Retention) newOwnSizer() *ownSizer {
	workers := parallel.Workers()
	return &ownSizer{
		bytes: newRetainedSizes(r.heap.NumObjects()),
		sizes: newShallowSizer(r.heap, r.size).fill,
		own:   make([][]int64, workers),
		large: make([][]model.ObjectIndex, workers),
	}
}

// set sets the sizes of the objects lo to hi-1 that are in the tree of
// idom, on worker w's behalf.
func (o *ownSizer) set(w, lo, hi int, idom []model.ObjectIndex) {
	if len(o.own[w]) < hi-lo {
		o.own[w] = make([]int64, max(hi-lo, parallel.ObjectChunk))
	}
	own := o.own[w][:hi-lo]
	o.sizes(lo, hi, own)
	for k, b := range own {
		switch {
		case idom[lo+k] == NotReached:
		case b < largeRetained:
			o.bytes.small[lo+k] = uint32(b)
		default:
			o.large[w] = append(o.large[w], model.ObjectIndex(lo+k))
		}
	}
}

// done sets the sizes of 4 GiB or more, once every range is set, and
// returns the sizes.
func (o *ownSizer) done() retainedSizes {
	for w, objs := range o.large {
		if len(objs) == 0 {
			continue
		}
		own := o.own[w][:1]
		for _, i := range objs {
			o.sizes(int(i), int(i)+1, own)
			o.bytes.set(int(i), own[0])
		}
	}
	return o.bytes
}

// addLeaves sets the retained count of every leaf to one, and adds its
// count and size (its own: a leaf dominates nothing) into its immediate
// dominator's, as addUp does, on every processor: counts atomically,
// sizes atomically while they fit their 32 bits, the others afterwards.
// It returns what the leaves that the virtual root dominates add to its
// count and size.
func (r *Retention) addLeaves(bytes retainedSizes, count []uint32, leaf []uint64) (objects, root int64) {
	type addition struct {
		to    model.ObjectIndex
		bytes int64
	}
	workers := parallel.Workers()
	aside := make([][]addition, workers)
	rootObjects, rootBytes := make([]int64, workers), make([]int64, workers)
	forEachMarked(leaf, func(w, i int) {
		// A leaf is no dominator, so its own entries are not written
		// meanwhile.
		count[i] = 1
		b := bytes.at(i)
		d := r.idom[i]
		if d == VirtualRoot {
			rootObjects[w]++
			rootBytes[w] += b
			return
		}
		atomic.AddUint32(&count[d], 1)
		if !addSmall(&bytes.small[d], b) {
			aside[w] = append(aside[w], addition{d, b})
		}
	})
	for w := range workers {
		objects += rootObjects[w]
		root += rootBytes[w]
		for _, a := range aside[w] {
			bytes.set(int(a.to), bytes.at(int(a.to))+a.bytes)
		}
	}
	return objects, root
}

// addSmall adds b to the size at atomically unless the sum would not
// fit its 32 bits (or the size is kept apart already), and reports
// whether it did.
func addSmall(at *uint32, b int64) bool {
	for {
		cur := atomic.LoadUint32(at)
		if int64(cur)+b >= largeRetained {
			return false
		}
		if atomic.CompareAndSwapUint32(at, cur, cur+uint32(b)) {
			return true
		}
	}
}

// addUp adds each object's retained size (and count, when count is not
// nil) into its immediate dominator's, in the order bottomUp visits the
// objects of the tree: each after every object it dominates. count holds
// what the leaves added (addLeaves): addUp adds each object it visits
// itself. It returns what the virtual root retains: objects (0 without
// count) and bytes.
func (r *Retention) addUp(bytes retainedSizes, count []uint32, bottomUp func(visit func(model.ObjectIndex))) (objects, root int64) {
	bottomUp(func(i model.ObjectIndex) {
		if count != nil {
			count[i]++
		}
		if d := r.idom[i]; d != VirtualRoot {
			if count != nil {
				count[d] += count[i]
			}
			bytes.set(int(d), bytes.at(int(d))+bytes.at(int(i)))
			return
		}
		if count != nil {
			objects += int64(count[i])
		}
		root += bytes.at(int(i))
	})
	return objects, root
}

// shallowSizer gives objects' shallow sizes in one size mode, those
// ShallowBytes gives, from what it works out once per class: the size of
// every instance of a class whose instances share one, the terms of an
// array class's sizes. Class objects (instances of java.lang.Class) and
// objects without a class have sizes of their own: ShallowBytes gives
// them.
type shallowSizer struct {
	h     *model.Heap
	mode  model.SizeMode
	class []classSizes
}

// classSizes are the sizes of one class's instances: fixed for every
// instance when array is false; else, for an array of n elements,
// fixed + n*elem rounded up to a multiple of align (a power of two).
// byObject: each instance has a size of its own.
type classSizes struct {
	fixed, elem, align int64
	array, byObject    bool
}

// newShallowSizer works out the sizes of h's classes in size mode.
func newShallowSizer(h *model.Heap, mode model.SizeMode) *shallowSizer {
	z := &shallowSizer{h: h, mode: mode, class: make([]classSizes, len(h.Classes))}
	for c := range h.Classes {
		switch cl, ci := &h.Classes[c], model.ClassIndex(c); {
		case cl.Name == "java.lang.Class":
			z.class[c] = classSizes{byObject: true}
		case cl.IsArray():
			z.class[c] = arraySizes(h, ci, mode)
		default:
			z.class[c] = classSizes{fixed: h.InstanceBytes(ci, mode)}
		}
	}
	return z
}

// arraySizes are the terms of the sizes of array class c's instances in
// size mode, as model.Heap.ArrayBytes works them out; byObject where the
// layout's alignment is no power of two.
func arraySizes(h *model.Heap, c model.ClassIndex, mode model.SizeMode) classSizes {
	if mode == model.SizeFields {
		return classSizes{elem: h.ArrayBytes(c, 1, mode), align: 1, array: true}
	}
	e, l := h.Classes[c].Elem, h.Layout
	if l.Align <= 0 || l.Align&(l.Align-1) != 0 {
		return classSizes{byObject: true}
	}
	return classSizes{fixed: int64(l.ArrayBase(e)), elem: int64(e.Size(l.Ref)), align: int64(l.Align), array: true}
}

// fill sets own[k] to the shallow size of object lo+k, for the objects
// lo to hi-1.
func (z *shallowSizer) fill(lo, hi int, own []int64) {
	h := z.h
	for i := lo; i < hi; i++ {
		obj := model.ObjectIndex(i)
		c := h.ClassOf(obj)
		if int(c) >= len(z.class) {
			own[i-lo] = ShallowBytes(h, obj, z.mode)
			continue
		}
		switch s := &z.class[c]; {
		case s.byObject:
			own[i-lo] = ShallowBytes(h, obj, z.mode)
		case s.array:
			n := s.fixed + int64(h.ArrayLength(obj))*s.elem
			own[i-lo] = (n + s.align - 1) &^ (s.align - 1)
		default:
			own[i-lo] = s.fixed
		}
	}
}
