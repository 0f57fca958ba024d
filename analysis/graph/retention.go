package graph

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
)

// The retention graph is the strong reference graph of a heap under a
// virtual root:
//
//   - the virtual root references every GC root object, and the class
//     object of every class the bootstrap loader defined (loader id 0),
//     array classes included: such "system classes" live as long as the
//     JVM (Eclipse MAT roots only those the dump marks as sticky classes,
//     see MATKept);
//   - every object references what model.Heap.Refs lists (instance
//     fields, array elements, a class object's super, loader, signers,
//     protection domain, statics and constants) and its own class object,
//     so a class, its statics and its loader are retained by the instances
//     when nothing else holds them (as in MAT);
//   - Reference.referent edges (model.Heap.Referents) are not strong and
//     are left out.
//
// Objects the virtual root does not reach are unreachable: garbage the
// JVM had not collected yet. They are counted and left out of the tree,
// unless RetentionOptions.KeepUnreachable hangs them under the virtual
// root: first those no other unreachable object references, then, for
// unreachable cycles, the lowest-indexed object of what is left.

// RetentionOptions choose how the dominator tree is built.
type RetentionOptions struct {
	// Size chooses the shallow sizes retained sizes add up.
	Size model.SizeMode
	// KeepUnreachable treats unreachable objects as reachable from the
	// virtual root instead of leaving them out.
	KeepUnreachable bool
	// Phase, when set, is called with a short name as each phase of the
	// computation begins, for a progress display.
	Phase func(name string)
	// Dominated, when set, is called once every object's immediate
	// dominator is final, before the retained sizes are added up, with
	// the slice ImmediateDominators will return: work that needs only
	// the tree's shape can start beside that last phase. It must not
	// change the slice.
	Dominated func(idom []model.ObjectIndex)
}

// phase tells o.Phase that phase name begins.
func (o RetentionOptions) phase(name string) {
	if o.Phase != nil {
		o.Phase(name)
	}
}

// Retention is the dominator tree of a heap's strong reference graph and
// the retained size of every reachable object. Object x dominates object y
// when every path from the virtual root to y passes through x; the objects
// x dominates are what the JVM would free if x were freed, and their
// shallow sizes add up to x's retained size.
//
// Every slice is indexed by object. The depth-first numbering the tree is
// computed over does not outlive ComputeRetention.
type Retention struct {
	heap *model.Heap
	// size is the size mode of the retained sizes.
	size model.SizeMode
	// idom is each object's immediate dominator: an object, VirtualRoot,
	// or NotReached for the objects out of the tree.
	idom []model.ObjectIndex
	// retainedBytes and retainedCount are 0 for the objects out of the
	// tree.
	retainedBytes retainedSizes
	retainedCount retainedCounts
	// reachedObjects and reachedBytes are the virtual root's retained
	// object count and size: those of the whole tree.
	reachedObjects int64
	reachedBytes   int64

	// Unreachable counts the objects the virtual root does not reach
	// (before KeepUnreachable hangs them under it), UnreachableBytes sums
	// their shallow sizes.
	Unreachable      int64
	UnreachableBytes int64
	// KeptUnreachable reports whether the unreachable objects were kept.
	KeptUnreachable bool
}

// The immediate dominators that are no object: the virtual root, and the
// mark of an object out of the tree. ComputeRetention refuses heaps whose
// object indexes could reach them.
const (
	VirtualRoot = model.NoObject
	NotReached  = model.NoObject - 1
)

// largeGraph is the object count above which ComputeRetention collects
// its work arrays before it allocates its results.
const largeGraph = 1 << 20

// errGraphTooLarge is returned for graphs whose edge count does not fit the
// 32-bit offsets of the predecessor table.
var errGraphTooLarge = errors.New("retention: more than 4 billion references")

// ComputeRetention builds the dominator tree of h's strong reference graph
// (h must have been loaded with its objects) with the semi-NCA algorithm:
// semidominators as Lengauer and Tarjan compute them (with path
// compression), then immediate dominators as nearest common ancestors in
// the tree built so far. Every traversal is iterative, so chains millions
// of objects deep are fine. The passes over every reference run in
// parallel. Memory: about six 32-bit words per object and one per
// reference while the tree is built, and two per reference that lowers or
// joins a predecessor list while those are gathered (see predecessors);
// three words per object remain (the immediate dominator, the retained
// count and size).
func ComputeRetention(h *model.Heap, o RetentionOptions) (*Retention, error) {
	if !h.HasObjects {
		return nil, errors.New("retention: the heap was loaded without its objects")
	}
	g := retentionGraph{h: h}
	n := h.NumObjects()
	if n >= math.MaxUint32-1 {
		return nil, fmt.Errorf("retention: %d objects: at most %d are supported (32-bit object numbers, two kept as marks)", n, math.MaxUint32-2)
	}
	r := &Retention{heap: h, size: o.Size}
	// vertices and parent are freed by hand, not deferred, as soon as
	// the tree no longer needs them: a deferred call would hold them to
	// the end, under the result arrays.
	vertices := objectIndexes(bigmem.Make[uint32](n + 1))[:1]
	vertices[0] = VirtualRoot
	parent := bigmem.Make[uint32](n + 1)[:1]
	o.phase("depth-first search")
	g.rootRefs = g.gcRoots()
	g.markRootChildren()
	defer bigmem.Free(g.leaf)
	g.depthFirst(&vertices, &parent, g.rootRefs)
	reached := len(parent) - 1 + g.leaves
	r.Unreachable = int64(n - reached)
	r.UnreachableBytes = g.unseenBytes(o.Size)
	if o.KeepUnreachable && r.Unreachable > 0 {
		r.KeptUnreachable = true
		extra := g.unreachableTops()
		g.depthFirst(&vertices, &parent, extra)
		g.rootRefs = append(g.rootRefs, extra...)
		for i := range n {
			if !g.seen.Has(model.ObjectIndex(i)) {
				g.rootRefs = append(g.rootRefs, model.ObjectIndex(i))
				g.depthFirst(&vertices, &parent, []model.ObjectIndex{model.ObjectIndex(i)})
			}
		}
	}
	bigmem.Free(g.seen)
	g.seen = nil
	order := bigmem.Make[uint32](n)
	numberObjects(order, vertices, g.leaf)
	bigmem.Free(vertices)
	bigmem.Free(g.rootChild)
	g.rootChild = nil
	o.phase("predecessors")
	lowest, starts, preds, err := g.predecessors(order, parent)
	if err != nil {
		bigmem.Free(g.leafReferrers)
		bigmem.Free(order)
		bigmem.Free(parent)
		return nil, err
	}
	o.phase("semidominators")
	semi := semidominators(parent, lowest, starts, preds)
	bigmem.Free(starts)
	bigmem.Free(preds)
	starts, preds = nil, nil
	o.phase("immediate dominators")
	idom := nearestCommonDominators(parent, semi)
	if g.leaves > 0 {
		o.phase("leaves")
		g.leafDominators(order, idom, semi)
	}
	bigmem.Free(g.leafReferrers)
	bigmem.Free(semi)
	g.leafReferrers, semi = nil, nil
	// The predecessor table and the work arrays are garbage now: collect
	// them before the result arrays are allocated, so that these reuse
	// their memory instead of growing the heap — for a graph big enough
	// for that to matter: on a small one the forced collection costs more
	// than the whole tree.
	if n > largeGraph {
		runtime.GC()
	}
	o.phase("retained sizes")
	r.keepTree(order, idom, g.leaf, o.Dominated)
	return r, nil
}

// objectIndexes is table, of 32-bit numbers, as object indexes: the same
// memory, so that a table Make returned stays one (bigmem.Free finds it).
func objectIndexes(table []uint32) []model.ObjectIndex {
	return unsafe.Slice((*model.ObjectIndex)(unsafe.SliceData(table)), len(table))
}

// treeBottomUp visits every object in the tree of idom after all the
// objects it dominates, without a depth-first numbering: it counts the
// objects each one immediately dominates, then, from every object that
// dominates none, visits it and climbs to its dominator as long as that
// one has no object left to wait for. Every object is visited once, so
// it takes two passes over idom and one word per object.
func treeBottomUp(idom []model.ObjectIndex, visit func(model.ObjectIndex)) {
	// waiting counts the objects an object immediately dominates that are
	// not visited yet; visited objects are marked done.
	const done = math.MaxUint32
	waiting := make([]uint32, len(idom))
	for _, d := range idom {
		if d != VirtualRoot && d != NotReached {
			waiting[d]++
		}
	}
	for i, d := range idom {
		if d == NotReached || waiting[i] != 0 {
			continue
		}
		for x := model.ObjectIndex(i); ; {
			visit(x)
			waiting[x] = done
			d := idom[x]
			if d == VirtualRoot {
				break
			}
			if waiting[d]--; waiting[d] != 0 {
				break
			}
			x = d
		}
	}
}

// retentionGraph enumerates the successors of the retention graph.
type retentionGraph struct {
	h *model.Heap
	// rootRefs are the objects the virtual root references.
	rootRefs []model.ObjectIndex
	// rootChild has the bit of each object of rootRefs (the first
	// ones: those KeepUnreachable adds are not in it); leaves counts the
	// objects the depth-first walks marked as leaves (markLeaf).
	rootChild []uint64
	leaves    int
	// seen has the bit of every object the depth-first walks numbered
	// or marked a leaf, while they run (see numbering.go); leaf that of
	// every object marked a leaf, leafReferrers that of every numbered
	// object that references one (predecessors marks them).
	seen          ObjectBits
	leaf          []uint64
	leafReferrers []uint64
}

// gcRoots lists the GC root objects and the system class objects, once
// each, in the order the dump names them.
func (g *retentionGraph) gcRoots() []model.ObjectIndex {
	h := g.h
	seen := make(map[model.ObjectIndex]bool)
	var out []model.ObjectIndex
	add := func(i model.ObjectIndex) {
		if i != model.NoObject && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	for _, rt := range h.Roots {
		add(rt.Object)
	}
	for c := range h.Classes {
		if cl := &h.Classes[c]; cl.Loader == 0 {
			add(cl.Object)
		}
	}
	return out
}

// classObject returns the class object of object i's class, NoObject when
// the dump lacks it.
func (g *retentionGraph) classObject(i model.ObjectIndex) model.ObjectIndex {
	c := g.h.ClassOf(i)
	if c == model.NoClass {
		return model.NoObject
	}
	return g.h.Classes[c].Object
}

// forEachSucc calls fn for every successor of object i: its references
// first, then its class object.
func (g *retentionGraph) forEachSucc(i model.ObjectIndex, fn func(model.ObjectIndex)) {
	for _, s := range g.h.Refs(i) {
		fn(s)
	}
	if c := g.classObject(i); c != model.NoObject {
		fn(c)
	}
}

// depthFirst numbers the objects reachable from starts (as children of the
// virtual root) that are not seen yet, in depth-first preorder after the
// numbers already given: it marks each one seen and appends it to
// vertices and its tree parent's number to parent. The leaves it meets
// (see markLeaf) are marked seen and reached instead of numbered.
func (g *retentionGraph) depthFirst(vertices *[]model.ObjectIndex, parent *[]uint32, starts []model.ObjectIndex) {
	var stack frameStack
	defer stack.free()
	var pacer bigmem.Pacer
	visit := func(obj model.ObjectIndex, from uint32) {
		pacer.Step()
		num := uint32(len(*parent))
		g.seen.Add(obj)
		*vertices = append(*vertices, obj)
		*parent = append(*parent, from)
		stack.push(dfsFrame{obj: obj, num: num})
	}
	for _, s := range starts {
		if g.seen.Has(s) {
			continue
		}
		visit(s, 0)
		for stack.depth > 0 {
			// Descend to the top frame's next unseen successor, or leave
			// the frame when it has none left. The cursor counts the
			// references looked at, and one more for the class object.
			f := stack.top()
			refs := g.h.Refs(f.obj)
			k := int(f.cursor)
			for k < len(refs) && (g.seen.Has(refs[k]) || g.markLeaf(refs[k])) {
				k++
			}
			if k < len(refs) {
				f.cursor = uint32(k + 1)
				visit(refs[k], f.num)
				continue
			}
			if k == len(refs) {
				f.cursor = uint32(k + 1)
				if c := g.classObject(f.obj); c != model.NoObject && !g.seen.Has(c) && !g.markLeaf(c) {
					visit(c, f.num)
					continue
				}
			}
			stack.pop()
		}
	}
}

// dfsFrame is an object on the path of a depth-first walk: its preorder
// number, and how many of its successors were looked at.
type dfsFrame struct {
	obj    model.ObjectIndex
	num    uint32
	cursor uint32
}

// frameStack is the path of a depth-first walk, which on a heap can be
// millions of objects deep, kept in blocks: growing it never copies the
// frames it holds, and a block once allocated serves again whenever the
// walk comes back to that depth. The first block is small, for the many
// short walks KeepUnreachable starts; the others are tables within the
// memory budget (bigmem.Make), each frame three of their words.
type frameStack struct {
	blocks [][]uint32
	depth  int
}

// The first block of a frameStack holds firstFrames frames, the others
// blockFrames each.
const (
	firstFrames = 1 << 10
	blockFrames = 1 << 17
	frameWords  = int(unsafe.Sizeof(dfsFrame{}) / 4)
)

// frame returns the frame at depth d, which must have a block.
func (s *frameStack) frame(d int) *dfsFrame {
	b, k := 0, d
	if d >= firstFrames {
		b, k = 1+(d-firstFrames)/blockFrames, (d-firstFrames)%blockFrames
	}
	return (*dfsFrame)(unsafe.Pointer(&s.blocks[b][k*frameWords]))
}

func (s *frameStack) push(f dfsFrame) {
	need := 1
	if s.depth >= firstFrames {
		need = 2 + (s.depth-firstFrames)/blockFrames
	}
	switch {
	case need <= len(s.blocks):
	case need == 1:
		s.blocks = append(s.blocks, make([]uint32, firstFrames*frameWords))
	default:
		s.blocks = append(s.blocks, bigmem.Make[uint32](blockFrames*frameWords))
	}
	*s.frame(s.depth) = f
	s.depth++
}

// top returns the frame on top, which stays where it is (pushing does not
// move it) until it is popped.
func (s *frameStack) top() *dfsFrame { return s.frame(s.depth - 1) }

// free releases the blocks.
func (s *frameStack) free() {
	for _, b := range s.blocks[min(1, len(s.blocks)):] {
		bigmem.Free(b)
	}
	s.blocks = nil
}

func (s *frameStack) pop() { s.depth-- }

// unreachableTops lists the objects not seen that no other object not
// seen references.
func (g *retentionGraph) unreachableTops() []model.ObjectIndex {
	n := g.h.NumObjects()
	referenced := make([]uint64, (n+63)/64)
	for i := range n {
		if u := model.ObjectIndex(i); !g.seen.Has(u) {
			g.forEachSucc(u, func(s model.ObjectIndex) {
				if u != s {
					referenced[s/64] |= 1 << (s % 64)
				}
			})
		}
	}
	var tops []model.ObjectIndex
	for i := range n {
		if !g.seen.Has(model.ObjectIndex(i)) && referenced[i/64]&(1<<(i%64)) == 0 {
			tops = append(tops, model.ObjectIndex(i))
		}
	}
	return tops
}

// semidominators computes the semidominator of every vertex, as a preorder
// number, by Lengauer and Tarjan's method with path compression: vertices
// are processed in reverse preorder, and a processed vertex hangs in a
// forest under its tree parent. A vertex is processed exactly when its
// number exceeds the one being processed, so the forest needs no separate
// marks, and only processed vertices have their ancestor and label read.
// lowest (see predecessors) becomes the semidominators, in place.
//
// The semidominator of w is the least of lowest[w] and, for each listed
// predecessor v, the least semidominator on the forest path from v up to
// (not including) its tree's root. Path compression only shortens such
// paths, folding the labels of the vertices it skips into the label of
// the vertex that skips them, so what a path yields does not depend on
// which paths were compressed before: the semidominators come out the
// same whatever the order of a vertex's predecessor list.
//
// The forest is kept in starts (see predecessors), which it takes no
// memory beyond, nothing that grows with the graph either (see
// compressPath): a processed vertex v's forest parent, its ancestor, in
// the end of v+1's list, starts[2v+2], which only the lists of v+1 and
// v+2, processed already, end or begin at, and its label, the least
// semidominator on the forest path from v up to (not including) the
// root of its forest tree, in the odd word after it. The two words a path
// reads of a vertex share a cache line, where two tables took two.
func semidominators(parent, lowest, starts, preds []uint32) []uint32 {
	n := len(parent)
	semi := lowest
	forest := starts[2:]
	var pacer bigmem.Pacer
	for w := uint32(n - 1); w > 0; w-- {
		pacer.Step()
		s := semi[w]
		for _, v := range preds[starts[2*w-2]:starts[2*w]] {
			s = min(s, compressPath(forest, v, w))
		}
		semi[w] = s
		forest[2*w+1] = s
		forest[2*w] = parent[w]
	}
	return semi
}

// compressPath compresses the forest path from the processed vertex v
// up to the root of its tree, the vertices numbered above w being the
// processed ones, and returns v's label then: the least semidominator on
// the path below the root. Every vertex on the path whose forest parent
// is not the root gets the root as forest parent and the least label
// from it up to the root's child. forest[2x] is vertex x's forest parent
// and forest[2x+1] its label.
//
// Such a path can be as long as the depth-first tree is deep, hundreds of
// millions of vertices on a big heap, so it is not gathered into a list:
// the way up turns each vertex's ancestor link around to point at the
// vertex below it (0 below v: the virtual root is never on a path), and
// the way down follows those links back, setting each ancestor to the
// root.
//
// A path of one step, v's ancestor being the root's child, is read and
// left as it is: compressing it would write v's two words to save one
// read the next time, and most paths are such (83% of the walks on the
// bigdump). On a heap bigger than memory the forest is a scratch file
// whose pages the kernel writes back while the semidominators run, and a
// write to a page written back takes a fault that dirties it again (at
// 32 GiB, with nothing running beside them, the semidominators dirtied
// 52 GiB of pages in 139 s, 113 CPU-s, compressing every path, and 15 GiB
// in 88 s, 67 CPU-s, leaving the one-step paths). A later walk from v
// that finds the path longer compresses it whole.
func compressPath(forest []uint32, v, w uint32) uint32 {
	if a := forest[2*v]; a <= w {
		return forest[2*v+1]
	} else if forest[2*a] <= w {
		return min(forest[2*v+1], forest[2*a+1])
	}
	below, x := uint32(0), v
	for a := forest[2*x]; a > w; a = forest[2*x] {
		forest[2*x] = below
		below, x = x, a
	}
	// x is now the root's child at the top of the path, two steps or
	// more above v.
	root, least := forest[2*x], forest[2*x+1]
	for y := below; y != 0; {
		next := forest[2*y]
		least = min(least, forest[2*y+1])
		forest[2*y+1] = least
		forest[2*y] = root
		y = next
	}
	return least
}

// nearestCommonDominators turns tree parents and semidominators into
// immediate dominators, in place of parent: in preorder, the immediate
// dominator of w is the deepest dominator-tree ancestor of its parent that
// is not below its semidominator.
func nearestCommonDominators(parent, semi []uint32) []uint32 {
	idom := parent
	for w := 1; w < len(idom); w++ {
		x := idom[w]
		for x > semi[w] {
			x = idom[x]
		}
		idom[w] = x
	}
	return idom
}

// ShallowBytes is h.ShallowBytes without its class-object lookup for the
// objects that are not class objects.
func ShallowBytes(h *model.Heap, i model.ObjectIndex, mode model.SizeMode) int64 {
	c := h.ClassOf(i)
	if c == model.NoClass || h.Classes[c].Name == "java.lang.Class" {
		return h.ShallowBytes(i, mode)
	}
	if h.Classes[c].IsArray() {
		return h.ArrayBytes(c, int64(h.ArrayLength(i)), mode)
	}
	return h.InstanceBytes(c, mode)
}

// retainedSizes holds one retained size per object in 4 bytes:
// sizes from 4 GiB up, which only the few objects near the top of the tree
// of a big heap reach, are kept apart. A tree read from an index holds
// them as the index keeps them (kept, with its elements in narrow).
type retainedSizes struct {
	small  []uint32
	large  map[int]int64
	narrow []uint16
	kept   *store.Narrow[uint16]
}

const largeRetained = math.MaxUint32

func newRetainedSizes(n int) retainedSizes {
	return retainedSizes{small: bigmem.Make[uint32](n), large: map[int]int64{}}
}

// keptSizes are the retained sizes as an index keeps them.
func keptSizes(kept *store.Narrow[uint16]) retainedSizes {
	return retainedSizes{narrow: kept.Elements(), kept: kept}
}

func (s *retainedSizes) at(p int) int64 {
	if s.narrow == nil {
		if v := s.small[p]; v != largeRetained {
			return int64(v)
		}
	} else if v := s.narrow[p]; v != math.MaxUint16 {
		return int64(v)
	}
	return s.wide(p)
}

// floor is the size of p as its element holds it: the size itself, or
// for a size kept aside the mark, which that size is at least.
func (s *retainedSizes) floor(p int) int64 {
	if s.narrow == nil {
		return int64(s.small[p])
	}
	return int64(s.narrow[p])
}

// wide is the size of p when its element does not hold it: from 4 GiB up
// in sizes computed now, from 64 KiB up in kept ones. Kept out of line:
// the rare case, which would otherwise make at several times longer.
//
//go:noinline
func (s *retainedSizes) wide(p int) int64 {
	if s.kept != nil {
		return int64(s.kept.Big(p))
	}
	return s.large[p]
}

// set stores the size of p in sizes computed now (not kept ones).
func (s retainedSizes) set(p int, v int64) {
	if v >= 0 && v < largeRetained {
		if s.small[p] == largeRetained {
			delete(s.large, p)
		}
		s.small[p] = uint32(v)
		return
	}
	s.small[p] = largeRetained
	s.large[p] = v
}

// retainedCounts holds the number of objects each object retains: in a
// slice for a tree computed now, as the index keeps them for one read
// from it (kept, with its elements in narrow).
type retainedCounts struct {
	slice  []uint32
	narrow []uint8
	kept   *store.Narrow[uint8]
}

// keptCounts are the retained counts as an index keeps them.
func keptCounts(kept *store.Narrow[uint8]) retainedCounts {
	return retainedCounts{narrow: kept.Elements(), kept: kept}
}

func (c *retainedCounts) at(p int) int64 {
	if c.narrow == nil {
		return int64(c.slice[p])
	}
	if v := c.narrow[p]; v != math.MaxUint8 {
		return int64(v)
	}
	return c.wide(p)
}

// wide is the count of p in kept counts when its element does not hold
// it. Kept out of line: the rare case.
//
//go:noinline
func (c *retainedCounts) wide(p int) int64 { return int64(c.kept.Big(p)) }

// unreachableBytes sums the shallow sizes of the objects whose mark is
// unreached: those without a preorder number (0) in an order, or
// NotReached in a tree's immediate dominators.
func unreachableBytes[T comparable](h *model.Heap, marks []T, unreached T, size model.SizeMode) int64 {
	var total int64
	for i, m := range marks {
		if m == unreached {
			total += ShallowBytes(h, model.ObjectIndex(i), size)
		}
	}
	return total
}
