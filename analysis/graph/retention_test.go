package analysis

import (
	"bytes"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// loadSynthetic writes a dump with write and loads it with its objects.
func loadSynthetic(t testing.TB, write func(w *hproftest.Writer)) *model.Heap {
	t.Helper()
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{})
	w.BeginHeapDump()
	write(w)
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := input.NewFile("synthetic", io.NopCloser(&buf), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func lookup(t testing.TB, h *model.Heap, id hproftest.ID) model.ObjectIndex {
	t.Helper()
	i, ok := h.Lookup(uint64(id))
	if !ok {
		t.Fatalf("object 0x%x not in the heap", id)
	}
	return i
}

// naiveDominators computes immediate dominators of a small graph by the
// definition: d dominates v when v is unreachable from the roots once d is
// removed. It returns -1 for the virtual root, -2 for unreachable nodes.
func naiveDominators(succ [][]int, roots []int) []int {
	n := len(succ)
	reach := func(removed int) []bool {
		seen := make([]bool, n)
		var stack []int
		for _, r := range roots {
			if r != removed && !seen[r] {
				seen[r] = true
				stack = append(stack, r)
			}
		}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, s := range succ[v] {
				if s != removed && !seen[s] {
					seen[s] = true
					stack = append(stack, s)
				}
			}
		}
		return seen
	}
	all := reach(-1)
	dominators := make([][]int, n) // strict dominators of each node
	for d := range n {
		without := reach(d)
		for v := range n {
			if v != d && all[v] && !without[v] {
				dominators[v] = append(dominators[v], d)
			}
		}
	}
	idom := make([]int, n)
	for v := range n {
		idom[v] = -2
		if !all[v] {
			continue
		}
		idom[v] = -1
		// The immediate dominator is the strict dominator that all the
		// others dominate: the one with the most strict dominators.
		best := -1
		for _, d := range dominators[v] {
			if best < 0 || len(dominators[d]) > len(dominators[best]) {
				best = d
			}
		}
		if best >= 0 {
			idom[v] = best
		}
	}
	return idom
}

// randomGraph is a small random graph, mostly forward chains so that its
// dominator trees are deep, and the nodes that are GC roots.
type randomGraph struct {
	succ  [][]int
	roots []int
}

func newRandomGraph(seed uint64) randomGraph {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := 20 + rng.IntN(150)
	succ := make([][]int, n)
	for v := range succ {
		for range rng.IntN(4) {
			succ[v] = append(succ[v], rng.IntN(n))
		}
		if v > 0 && rng.IntN(3) > 0 {
			succ[v-1] = append(succ[v-1], v)
		}
	}
	return randomGraph{succ: succ, roots: []int{0, rng.IntN(n)}}
}

// load writes g as a dump of one Object[] per node and loads it. It
// returns the heap, each node's object, and the objects of the classes:
// besides the nodes the heap holds the array class's object, a system
// class, so one more object the virtual root immediately dominates, which
// has no statics, so 0 field bytes.
func (g randomGraph) load(t *testing.T) (h *model.Heap, objs, mirrors []model.ObjectIndex) {
	ids := make([]hproftest.ID, len(g.succ))
	h = loadSynthetic(t, func(w *hproftest.Writer) {
		arrays := w.Class("[Ljava/lang/Object;", nil)
		for v := range ids {
			ids[v] = w.Alloc(64)
		}
		for v, s := range g.succ {
			elems := make([]hproftest.ID, len(s))
			for k, x := range s {
				elems[k] = ids[x]
			}
			w.ObjArrayDump(hproftest.ObjArrayDump{ID: ids[v], ClassID: arrays.ID, Elements: elems})
		}
		for _, r := range g.roots {
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: ids[r], JNIRef: 1})
		}
	})
	objs = make([]model.ObjectIndex, len(ids))
	for v, id := range ids {
		objs[v] = lookup(t, h, id)
	}
	for _, c := range h.Classes {
		if c.Object != model.NoObject {
			mirrors = append(mirrors, c.Object)
		}
	}
	return h, objs, mirrors
}

// naiveRetained counts, for each node of g, the nodes it dominates by
// the immediate dominators idom of naiveDominators, and their field
// bytes: an Object[] of k elements has 8k.
func (g randomGraph) naiveRetained(idom []int) (objects, bytes []int64) {
	objects, bytes = make([]int64, len(idom)), make([]int64, len(idom))
	for x := range idom {
		if idom[x] == -2 {
			continue
		}
		for y := x; y >= 0; y = idom[y] {
			objects[y]++
			bytes[y] += int64(8 * len(g.succ[x]))
		}
	}
	return objects, bytes
}

// TestDominatorsMatchDefinition compares the dominator tree of random
// graphs with the one the definition gives, and the retained sizes with
// those that tree gives, also when they are added up again in another
// size mode over the kept tree (as from an index).
func TestDominatorsMatchDefinition(t *testing.T) {
	for seed := range uint64(30) {
		g := newRandomGraph(seed)
		h, objs, mirrors := g.load(t)
		r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
		if err != nil {
			t.Fatal(err)
		}
		jvm, err := ComputeRetention(h, RetentionOptions{Size: model.SizeJVM})
		if err != nil {
			t.Fatal(err)
		}
		again := jvm.InSize(model.SizeFields)
		want := naiveDominators(g.succ, g.roots)
		wantObjects, wantBytes := g.naiveRetained(want)
		checkTreeLists(t, seed, r, want, mirrors, func(v int) model.ObjectIndex { return objs[v] })
		reached, reachedBytes, lostBytes := int64(len(mirrors)), int64(0), int64(0)
		for v, obj := range objs {
			switch want[v] {
			case -2:
				lostBytes += int64(8 * len(g.succ[v]))
				if r.Reachable(obj) {
					t.Errorf("seed %d: node %d is unreachable, but in the tree", seed, v)
				}
				continue
			case -1:
				if d := r.ImmediateDominator(obj); d != model.NoObject {
					t.Errorf("seed %d: node %d: immediate dominator %d, want the virtual root", seed, v, d)
				}
			default:
				if d := r.ImmediateDominator(obj); d != objs[want[v]] {
					t.Errorf("seed %d: node %d: immediate dominator %d, want node %d", seed, v, d, want[v])
				}
			}
			reached++
			reachedBytes += int64(8 * len(g.succ[v]))
			if got := r.RetainedObjects(obj); got != wantObjects[v] {
				t.Errorf("seed %d: node %d retains %d objects, want %d", seed, v, got, wantObjects[v])
			}
			if got := r.RetainedBytes(obj); got != wantBytes[v] {
				t.Errorf("seed %d: node %d retains %d bytes, want %d", seed, v, got, wantBytes[v])
			}
			if got := again.RetainedBytes(obj); got != wantBytes[v] {
				t.Errorf("seed %d: node %d retains %d bytes added up again, want %d", seed, v, got, wantBytes[v])
			}
		}
		for _, c := range []*Retention{r, again} {
			lost := int64(h.NumObjects()) - reached
			if c.ReachableObjects() != reached || c.ReachableBytes() != reachedBytes || c.Unreachable != lost || c.UnreachableBytes != lostBytes {
				t.Errorf("seed %d: reachable %d objects, %d bytes, unreachable %d, %d bytes; want %d, %d, %d, %d", seed,
					c.ReachableObjects(), c.ReachableBytes(), c.Unreachable, c.UnreachableBytes, reached, reachedBytes, lost, lostBytes)
			}
		}
	}
}

// checkTreeLists checks TopLevel and Dominated against the immediate
// dominators want of naiveDominators and leaves, more objects the virtual
// root immediately dominates that dominate nothing: both list objects by
// index. obj gives the object of a node.
func checkTreeLists(t *testing.T, seed uint64, r *Retention, want []int, leaves []model.ObjectIndex, obj func(int) model.ObjectIndex) {
	t.Helper()
	children := map[model.ObjectIndex][]model.ObjectIndex{}
	top := slices.Clone(leaves)
	all := slices.Clone(leaves)
	for v, d := range want {
		switch {
		case d == -1:
			top = append(top, obj(v))
		case d >= 0:
			children[obj(d)] = append(children[obj(d)], obj(v))
		}
		if d != -2 {
			all = append(all, obj(v))
		}
	}
	sorted := func(s []model.ObjectIndex) []model.ObjectIndex { slices.Sort(s); return s }
	if got := r.TopLevel(); !slices.Equal(got, sorted(top)) {
		t.Errorf("seed %d: top level %v, want %v", seed, got, top)
	}
	got := r.Dominated(all)
	for _, x := range all {
		if !slices.Equal(got[x], sorted(children[x])) {
			t.Errorf("seed %d: object %d dominates %v, want %v", seed, x, got[x], children[x])
		}
	}
}

// TestDominatorChainMillionDeep builds a linked list of a million nodes
// under one GC root: each node dominates the rest of the list.
func TestDominatorChainMillionDeep(t *testing.T) {
	const n = 1_000_000
	var ids []hproftest.ID
	h := loadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		ids = make([]hproftest.ID, n)
		for k := range ids {
			ids[k] = w.Alloc(16)
		}
		for k, id := range ids {
			var next hproftest.ID
			if k+1 < n {
				next = ids[k+1]
			}
			w.InstanceWithID(id, link, hproftest.Ref(next))
		}
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: ids[0], JNIRef: 1})
	})
	r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, 1, n / 2, n - 1} {
		obj := lookup(t, h, ids[k])
		if got, want := r.RetainedObjects(obj), int64(n-k); got != want {
			t.Errorf("node %d retains %d objects, want %d", k, got, want)
		}
		// a Link's only field is an 8-byte reference
		if got, want := r.RetainedBytes(obj), int64(8*(n-k)); got != want {
			t.Errorf("node %d retains %d bytes, want %d", k, got, want)
		}
		if k > 0 {
			if d := r.ImmediateDominator(obj); d != lookup(t, h, ids[k-1]) {
				t.Errorf("node %d: immediate dominator is not node %d", k, k-1)
			}
		}
	}
}

// TestUnreachableKept checks that unreachable objects are counted, left
// out, and with KeepUnreachable hung under the virtual root: the head of an
// unreachable list then retains the list, and a cycle nothing else
// references is kept too.
func TestUnreachableKept(t *testing.T) {
	var live, head, second, cycleA, cycleB hproftest.ID
	h := loadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		live = w.Instance(link, hproftest.Ref(0))
		second = w.Instance(link, hproftest.Ref(0))
		head = w.Instance(link, hproftest.Ref(second))
		cycleA, cycleB = w.Alloc(16), w.Alloc(16)
		w.InstanceWithID(cycleA, link, hproftest.Ref(cycleB))
		w.InstanceWithID(cycleB, link, hproftest.Ref(cycleA))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: live, JNIRef: 1})
	})
	r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unreachable != 4 || r.UnreachableBytes != 4*8 {
		t.Errorf("unreachable: %d objects, %d bytes; want 4 and 32", r.Unreachable, r.UnreachableBytes)
	}
	if r.Reachable(lookup(t, h, head)) || !r.Reachable(lookup(t, h, live)) {
		t.Error("reachability wrong")
	}
	r, err = ComputeRetention(h, RetentionOptions{Size: model.SizeFields, KeepUnreachable: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.RetainedObjects(lookup(t, h, head)); got != 2 {
		t.Errorf("unreachable head retains %d objects, want 2", got)
	}
	if d := r.ImmediateDominator(lookup(t, h, head)); d != model.NoObject {
		t.Errorf("unreachable head: immediate dominator %d, want the virtual root", d)
	}
	a, b := lookup(t, h, cycleA), lookup(t, h, cycleB)
	if !r.Reachable(a) || !r.Reachable(b) || r.RetainedObjects(a)+r.RetainedObjects(b) != 3 {
		t.Errorf("cycle: kept %v %v, retaining %d and %d objects; want one retaining both",
			r.Reachable(a), r.Reachable(b), r.RetainedObjects(a), r.RetainedObjects(b))
	}
}

func TestRetainedSizesAcrossFourGiB(t *testing.T) {
	s := newRetainedSizes(3)
	values := []int64{0, 1<<32 - 2, 1 << 32, 5 << 40}
	for _, v := range values {
		s.set(1, v)
		if got := s.at(1); got != v {
			t.Errorf("set %d, got %d", v, got)
		}
	}
	s.set(1, 7)
	if s.at(1) != 7 || len(s.large) != 0 {
		t.Errorf("after a small value: %d, %d large entries", s.at(1), len(s.large))
	}
	if s.at(0) != 0 || s.at(2) != 0 {
		t.Error("neighbours changed")
	}
}

// TestByClassCountsNestedOnce: a list of five Links and one more Link on
// its own. Grouped by class, the Links retain the union of their retained
// sets — the five of the list and the lone one, 6 × 8 field bytes — not
// the sum 5+4+3+2+1+1 links that adding each one's retained size gives.
func TestByClassCountsNestedOnce(t *testing.T) {
	h := loadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		var next hproftest.ID
		for range 5 {
			next = w.Instance(link, hproftest.Ref(next))
		}
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: next, JNIRef: 1})
		lone := w.Instance(link, hproftest.Ref(0))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: lone, JNIRef: 2})
	})
	r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	rep := Dominators(h, r, DominatorOptions{Class: regexp.MustCompile(`^Link$`), ByClass: true, Size: model.SizeFields})
	if len(rep.Classes) != 1 {
		t.Fatalf("%d class rows, want 1", len(rep.Classes))
	}
	if c := rep.Classes[0]; c.Objects != 6 || c.ShallowBytes != 6*8 || c.RetainedBytes != 6*8 {
		t.Errorf("Link row %+v: want 6 objects, 48 shallow and 48 retained bytes", c)
	}
}

// TestChainToDamagedTree gives chainTo path trees as a damaged index
// could hold them: a loop, and a parent past the last object. Neither
// hangs nor crashes; both give no path. A sound tree gives its path.
func TestChainToDamagedTree(t *testing.T) {
	sound := []uint32{rootParent, 0, 1}
	if got := chainTo(sound, 2); !slices.Equal(got, []model.ObjectIndex{0, 1, 2}) {
		t.Errorf("sound tree: %v, want [0 1 2]", got)
	}
	for name, parent := range map[string][]uint32{
		"loop":         {2, 0, 1},
		"out of range": {rootParent, 7, 1},
	} {
		if got := chainTo(parent, 2); got != nil {
			t.Errorf("%s: %v, want no path", name, got)
		}
	}
}
