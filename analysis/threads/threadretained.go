package threads

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// What a thread retains. Each thread is a node of the retention graph
// standing between the virtual root and what the thread keeps alive: its
// java.lang.Thread object (a node of its own, even when something else,
// such as a JDK 17 ThreadGroup, references it: that reference goes away
// with the thread) and the objects its stack roots name (ROOT_JAVA_FRAME,
// ROOT_JNI_LOCAL, ROOT_NATIVE_STACK, ROOT_THREAD_BLOCK of that thread),
// which hang under the thread's node instead of under the virtual root.
// A thread retains what its node dominates in that graph: the objects the
// JVM would free if the thread ended. An object some other root or some
// other thread also keeps alive is not retained by it.
//
// The dominator tree of the heap already says most of it: moving the
// stack roots under the thread nodes only changes which node dominates
// the objects the virtual root immediately dominates (the top level), as
// every other object keeps its dominator. So the top-level subtrees are
// contracted into one node each, with an edge wherever an object of one
// subtree references the top of another, and the threads' labels are
// spread over that graph: a top-level object reached from one thread only
// (and from no root that is not a thread) is that thread's, with the
// whole subtree it retains.

// FrameLocal is an object a stack frame holds, with its retained size in
// the dominator tree of the heap.
type FrameLocal struct {
	ObjectID      string `json:"object_id"`
	Class         string `json:"class"`
	RetainedBytes int64  `json:"retained_bytes"`
}

// threadHeld reports whether a root record of kind k names an object that
// its thread's stack holds.
func threadHeld(rt model.Root) bool {
	if rt.Thread < 0 || rt.Object == model.NoObject {
		return false
	}
	switch rt.Kind {
	case model.RootJavaFrame, model.RootJNILocal, model.RootNativeStack, model.RootThreadBlock:
		return true
	}
	return false
}

// AddThreadRetention fills in, for rows that ThreadsFromHeap made of h
// (one per thread of h, in its order), the bytes each thread retains and
// the objects each listed frame holds with their retained sizes. r is the
// dominator tree of h's strong references (without unreachable objects
// kept).
//
// edges, when they are r's tree's (kept in an index: ThreadEdges), spare
// the pass over every reference that finds them.
func AddThreadRetention(h *model.Heap, r *graph.Retention, rows []ThreadRow, edges *ThreadEdgeList) error {
	if len(rows) != len(h.Threads) {
		return fmt.Errorf("threads: %d rows for %d threads", len(rows), len(h.Threads))
	}
	retained, err := threadRetained(h, r, edges)
	if err != nil {
		return err
	}
	for k := range rows {
		rows[k].RetainedBytes = &retained[k]
		for f := range rows[k].Frames {
			rows[k].Frames[f].Locals = []FrameLocal{}
		}
	}
	for _, rt := range h.Roots {
		if !threadHeld(rt) || rt.Frame < 0 || int(rt.Frame) >= len(rows[rt.Thread].Frames) {
			continue
		}
		f := &rows[rt.Thread].Frames[rt.Frame]
		f.Locals = append(f.Locals, FrameLocal{ObjectID: heap.ObjectID(h, rt.Object), Class: heap.ClassName(h, rt.Object), RetainedBytes: r.RetainedBytes(rt.Object)})
	}
	return nil
}

// Labels of the top-level objects the threads' labels reach: a thread
// index, or one of these.
const (
	labelShared   int32 = -1 // reached from two threads
	labelUnrooted int32 = -2 // reached from a root that is no thread's
)

// threadNodes maps each Thread object of h that the dominator tree of
// immediate dominators idom reaches to the first thread it is the
// object of; those objects are the threads' nodes.
func threadNodes(h *model.Heap, idom []model.ObjectIndex) map[model.ObjectIndex]int32 {
	threadOf := map[model.ObjectIndex]int32{}
	for k, t := range h.Threads {
		if t.Object != model.NoObject && idom[t.Object] != graph.NotReached {
			if _, dup := threadOf[t.Object]; !dup {
				threadOf[t.Object] = int32(k)
			}
		}
	}
	return threadOf
}

// rootedObjects marks the objects the virtual root still references once
// the stack roots hang under their threads, threadOf's nodes among them.
func rootedObjects(h *model.Heap, threadOf map[model.ObjectIndex]int32) graph.ObjectBits {
	rooted := newObjectBits(h.NumObjects())
	for _, rt := range h.Roots {
		if rt.Object != model.NoObject && !threadHeld(rt) {
			rooted.Add(rt.Object)
		}
	}
	for c := range h.Classes {
		if cl := &h.Classes[c]; cl.Loader == 0 && cl.Object != model.NoObject {
			rooted.Add(cl.Object)
		}
	}
	for obj := range threadOf {
		rooted.Add(obj)
	}
	return rooted
}

// newObjectBits is an empty set of the objects below n, a table from
// model/bigmem for the caller to free: on a big heap the sets of the
// build are a bit per object each.
func newObjectBits(n int) graph.ObjectBits {
	return bigmem.Make[uint64]((n + 63) / 64)
}

// ThreadEdges finds the edges of the graph of h's top-level subtrees in
// its dominator tree r, contracted (see contractedEdges): what
// AddThreadRetention spreads the threads' labels over.
func ThreadEdges(h *model.Heap, r *graph.Retention) (*ThreadEdgeList, error) {
	return ThreadEdgesOf(h, r.ImmediateDominators())
}

// ThreadEdgesOf is ThreadEdges for the dominator tree whose immediate
// dominators by object are idom (as graph.RetentionOptions.Dominated
// gives them), before its retained sizes are added up: the list is
// that tree's once it is whole.
func ThreadEdgesOf(h *model.Heap, idom []model.ObjectIndex) (*ThreadEdgeList, error) {
	rooted := rootedObjects(h, threadNodes(h, idom))
	// inner marks the top-level objects that are no root any more: only
	// they can come under a thread's node other than the threads' own.
	inner := newObjectBits(h.NumObjects())
	defer bigmem.Free(inner)
	for i, d := range idom {
		if d == graph.VirtualRoot && !rooted.Has(model.ObjectIndex(i)) {
			inner.Add(model.ObjectIndex(i))
		}
	}
	bigmem.Free(rooted)
	edges, err := contractedEdges(h, idom, inner)
	if err != nil {
		return nil, err
	}
	return &ThreadEdgeList{edges: edges, idom: idom}, nil
}

// threadRetained returns the bytes each thread of h retains (see above),
// over the contracted graph's edges given, or found now when they are
// not of r's tree.
func threadRetained(h *model.Heap, r *graph.Retention, given *ThreadEdgeList) ([]int64, error) {
	threadOf := threadNodes(h, r.ImmediateDominators())
	rooted := rootedObjects(h, threadOf)
	defer bigmem.Free(rooted)
	if !given.of(r) {
		var err error
		if given, err = ThreadEdges(h, r); err != nil {
			return nil, err
		}
		defer bigmem.Free(given.edges)
	}
	edges := given.edges
	label := map[model.ObjectIndex]int32{}
	// spread gives label l to the top-level object v and to what it
	// reaches, stopping at the threads' nodes of other threads and at
	// what already has l or a stronger label.
	var queue []model.ObjectIndex
	var labels []int32
	spread := func(v model.ObjectIndex, l int32) {
		queue, labels = append(queue[:0], v), append(labels[:0], l)
		for len(queue) > 0 {
			v, l := queue[len(queue)-1], labels[len(labels)-1]
			queue, labels = queue[:len(queue)-1], labels[:len(labels)-1]
			if k, ok := threadOf[v]; ok && k != l {
				continue
			}
			// A label only grows stronger: none, then one thread, then
			// shared; unrooted spreads before every thread and stays.
			if cur, seen := label[v]; seen {
				if cur == l || cur == labelShared || cur == labelUnrooted {
					continue
				}
				l = labelShared
			}
			label[v] = l
			lo, _ := slices.BinarySearch(edges, uint64(v)<<32)
			for _, e := range edges[lo:] {
				if e>>32 != uint64(v) {
					break
				}
				queue, labels = append(queue, model.ObjectIndex(uint32(e))), append(labels, l)
			}
		}
	}
	// The roots that are no thread's first, so that what they reach is
	// settled before the threads spread.
	for i, d := range r.ImmediateDominators() {
		obj := model.ObjectIndex(i)
		if d == graph.VirtualRoot && rooted.Has(obj) {
			if _, ok := threadOf[obj]; !ok {
				spread(obj, labelUnrooted)
			}
		}
	}
	for k, t := range h.Threads {
		if first, ok := threadOf[t.Object]; ok && first == int32(k) {
			spread(t.Object, int32(k))
		}
	}
	for _, rt := range h.Roots {
		if threadHeld(rt) && !rooted.Has(rt.Object) {
			thread := rt.Thread
			if first, ok := threadOf[h.Threads[thread].Object]; ok {
				thread = first
			}
			spread(rt.Object, thread)
		}
	}
	retained := make([]int64, len(h.Threads))
	for obj, l := range label {
		if l >= 0 {
			retained[l] += r.RetainedBytes(obj)
		}
	}
	for k, t := range h.Threads {
		if first, ok := threadOf[t.Object]; ok && first != int32(k) {
			retained[k] = retained[first]
		}
	}
	return retained, nil
}

// contractedEdges lists, sorted and once each as top<<32 | target, the
// edges of the contracted graph that end at an inner top-level object:
// one wherever an object of the subtree under top references target (or
// has it for class object), target not being top itself. idom are the
// immediate dominators, as graph.Retention.ImmediateDominators gives them.
//
// The pass over every object's references runs in chunks on every
// processor. They share the memo of top-level dominators, whose entries
// any chunk may fill in, always with the same value; each worker keeps
// its own edges, by ranges of tops, and sorting them all makes the list
// the same whatever the scheduling. The memo, the edges before they are
// sorted (by their digits, in parallel) and the list returned are tables
// of the build
// (model/bigmem): the list grows with the references into inner objects
// (73 M edges, 585 MB, for the 4 GiB synthetic dump of 80 M objects). A
// build keeps the list with its heap, as it keeps the heap's tables;
// threadRetained frees one it finds for itself. An error is the one of
// the first chunk that has one.
func contractedEdges(h *model.Heap, idom []model.ObjectIndex, inner graph.ObjectBits) ([]uint64, error) {
	n := h.NumObjects()
	// innerClass is, per class, its class object when that is inner,
	// NoObject otherwise: the class edge of most objects needs no look
	// at the bits.
	innerClass := make([]model.ObjectIndex, len(h.Classes))
	for c := range h.Classes {
		innerClass[c] = model.NoObject
		if o := h.Classes[c].Object; o != model.NoObject && inner.Has(o) {
			innerClass[c] = o
		}
	}
	top := &topLevel{idom: idom, top: bigmem.Make[uint32](n)}
	finders := make([]*edgeFinder, parallel.Workers())
	errs := make([]error, (n+parallel.ObjectChunk-1)/parallel.ObjectChunk)
	parallel.ForChunks(n, parallel.ObjectChunk, func(worker, lo, hi int) {
		f := finders[worker]
		if f == nil {
			f = newEdgeFinder(top)
			finders[worker] = f
		}
		for i := lo; i < hi; i++ {
			u := model.ObjectIndex(i)
			if idom[u] == graph.NotReached {
				continue
			}
			for _, v := range h.Refs(u) {
				if v != model.NoObject && inner.Has(v) {
					if err := f.add(u, v); err != nil {
						errs[lo/parallel.ObjectChunk] = err
						return
					}
				}
			}
			if c := h.ClassOf(u); c != model.NoClass && innerClass[c] != model.NoObject {
				if err := f.add(u, innerClass[c]); err != nil {
					errs[lo/parallel.ObjectChunk] = err
					return
				}
			}
		}
	})
	bigmem.Free(top.top)
	for _, err := range errs {
		if err != nil {
			for _, f := range finders {
				if f != nil {
					for _, b := range f.buckets {
						bigmem.Free(b)
					}
				}
			}
			return nil, err
		}
	}
	// The buckets are sorted one at a time and appended in order (a
	// bucket's tops all come before the next one's), each freed once it
	// is in the list: the edges are held about once while sorted, plus
	// the largest bucket.
	var edges []uint64
	for k := range edgeBuckets {
		sorted := sortEdges(joinEdges(finders, k))
		edges = bigmem.Append(edges, sorted...)
		bigmem.Free(sorted)
	}
	return edges, nil
}

// edgeBuckets is how many ranges of tops the workers keep their edges in,
// so that each range is sorted on its own.
const edgeBuckets = 16

// bucketShift is the shift that takes an object index of a heap of n
// objects to its bucket, below edgeBuckets.
func bucketShift(n int) uint {
	var shift uint
	for (n-1)>>shift >= edgeBuckets {
		shift++
	}
	return shift
}

// joinEdges returns the edges the workers found in bucket k, in one
// table: the first worker's, grown (in its scratch file when it has one,
// without a copy), the others' appended and freed one by one, so that
// the edges are held about once, not twice.
func joinEdges(finders []*edgeFinder, k int) []uint64 {
	var edges []uint64
	for _, f := range finders {
		if f == nil {
			continue
		}
		if edges == nil {
			edges = f.buckets[k]
			continue
		}
		edges = bigmem.Append(edges, f.buckets[k]...)
		bigmem.Free(f.buckets[k])
	}
	return edges
}

// sortEdges sorts edges, a table from model/bigmem, and drops their
// repeats, in the table itself or in the one the sort used as its
// scratch, freeing the other.
func sortEdges(edges []uint64) []uint64 {
	scratch := bigmem.Make[uint64](len(edges))
	sorted := slices.Compact(parallel.SortBits(edges, scratch, 0, 64))
	if unsafe.SliceData(sorted) == unsafe.SliceData(edges) {
		bigmem.Free(scratch)
	} else {
		bigmem.Free(edges)
	}
	return sorted
}

// topLevel is the dominator tree and the memo of top-level dominators
// that the workers of contractedEdges share.
type topLevel struct {
	idom []model.ObjectIndex
	// top holds each object's top-level dominator plus one, 0 while not
	// known: a fresh array needs no filling. Its entries are read and
	// written atomically, as workers climb the same dominators; any
	// worker writes the same value.
	top []uint32
}

// edgeFinder is the state of one worker of contractedEdges.
type edgeFinder struct {
	top *topLevel
	// buckets hold the edges found, by their top's range: top>>shift.
	buckets [edgeBuckets][]uint64
	shift   uint
	// recent remembers edges already listed, by a hash of the edge: the
	// objects of one subtree mostly reference the same few tops (their
	// class objects above all), so this keeps the list near its size
	// once deduplicated. No edge is 0, as top and target differ.
	recent [1 << 16]uint64
	// done remembers, the same way, the pairs of a dominator and a
	// target (dominator<<32 | target, none all ones) already handled:
	// the objects a dominator immediately dominates share its top, so a
	// pair's edge is listed once, without looking the top up again (for
	// the siblings of a big array or of a long list above all).
	done [1 << 16]uint64
}

// newEdgeFinder is a worker's state with nothing handled yet.
func newEdgeFinder(top *topLevel) *edgeFinder {
	f := &edgeFinder{top: top, shift: bucketShift(len(top.top))}
	for k := range f.done {
		f.done[k] = math.MaxUint64
	}
	return f
}

// add lists the edge from the top of u's subtree to the inner object v.
func (f *edgeFinder) add(u, v model.ObjectIndex) error {
	t := u
	if d := f.top.idom[u]; d != graph.VirtualRoot {
		pair := uint64(d)<<32 | uint64(v)
		slot := &f.done[(pair*0x9E3779B97F4A7C15)>>48]
		if *slot == pair {
			return nil
		}
		*slot = pair
		var err error
		if t, err = f.topOf(d); err != nil {
			return err
		}
	}
	if t == v {
		return nil
	}
	e := uint64(t)<<32 | uint64(v)
	if slot := &f.recent[(e*0x9E3779B97F4A7C15)>>48]; *slot != e {
		*slot = e
		k := t >> f.shift
		f.buckets[k] = bigmem.AppendOne(f.buckets[k], e)
	}
	return nil
}

// topOf climbs the dominators of u up to the top level, or to one whose
// answer is known, then climbs again to keep the answer for every object
// on the way: the second climb holds no list of them, which on a deep
// tree (a long linked list) would be millions long. Most objects are one
// step from one whose answer is known, which takes neither.
func (f *edgeFinder) topOf(u model.ObjectIndex) (model.ObjectIndex, error) {
	top, idom := f.top.top, f.top.idom
	if t := atomic.LoadUint32(&top[u]); t != 0 {
		return model.ObjectIndex(t - 1), nil
	}
	if d := idom[u]; d == graph.VirtualRoot {
		atomic.StoreUint32(&top[u], uint32(u)+1)
		return u, nil
	} else if int(d) < len(top) {
		if t := atomic.LoadUint32(&top[d]); t != 0 {
			atomic.StoreUint32(&top[u], t)
			return model.ObjectIndex(t - 1), nil
		}
	}
	x := u
	var t uint32
	for steps := 0; ; steps++ {
		d := idom[x]
		if d == graph.VirtualRoot {
			t = uint32(x) + 1
			break
		}
		if int(d) >= len(top) || steps >= len(top) {
			return 0, fmt.Errorf("threads: object %d's dominators do not lead to the root", u)
		}
		x = d
		if t = atomic.LoadUint32(&top[x]); t != 0 {
			break
		}
	}
	for y := u; y != x; y = idom[y] {
		atomic.StoreUint32(&top[y], t)
	}
	atomic.StoreUint32(&top[x], t)
	return model.ObjectIndex(t - 1), nil
}
