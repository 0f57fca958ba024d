package heap

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// Sizes below are --size fields: field bytes only, an 8-byte reference or
// long, a byte[] element 1 byte, a class object without statics 0 bytes.

// fillers writes, as GC roots, objects of distinct classes Filler0, …,
// each holding a byte[] of size-8 elements, so that each retains size
// bytes and no class groups them.
func fillers(w *hproftest.Writer, n int, size int64) {
	for k := range n {
		c := w.Class(fmt.Sprintf("Filler%d", k), nil, hproftest.Field{Name: "data", Type: hproftest.TypeObject})
		f := w.Instance(c, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, size-8))))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: f, JNIRef: 1})
	}
}

func findLeaks(t *testing.T, h *model.Heap, threshold float64) LeakReport {
	t.Helper()
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	l := FindLeaks(h, r, LeakOptions{Threshold: threshold, Classes: 5})
	l.Describe(h, nil, nil)
	return l
}

// TestLeakSingleHolder is a list-like holder retaining 60% of the heap
// through an Object[] of 1000 small elements, beside 8 fillers of 5%
// each: one suspect, the holder (not its array, which passes the threshold
// too but lies below it), accumulating in the array, whose elements are
// the biggest class beneath.
func TestLeakSingleHolder(t *testing.T) {
	const n = 1000
	const holderBytes = 8 + 8*n + 8*n // holder's field, the array, the elements
	const total = holderBytes * 100 / 60
	const fillerBytes = (total - holderBytes) / 8
	var holder, array hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		elem := w.Class("Elem", nil, hproftest.Field{Name: "v", Type: hproftest.TypeLong})
		objects := w.Class("[Ljava/lang/Object;", nil)
		holderClass := w.Class("Holder", nil, hproftest.Field{Name: "elems", Type: hproftest.TypeObject})
		elems := make([]hproftest.ID, n)
		for k := range elems {
			elems[k] = w.Instance(elem, hproftest.Long(int64(k)))
		}
		array = w.ObjectArray(objects, elems...)
		holder = w.Instance(holderClass, hproftest.Ref(array))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: holder, JNIRef: 1})
		fillers(w, 8, fillerBytes)
	})
	l := findLeaks(t, h, 0.10)
	if l.TotalBytes != total {
		t.Fatalf("total %d, want %d", l.TotalBytes, total)
	}
	if len(l.Suspects) != 1 {
		t.Fatalf("%d suspects, want the holder alone: %+v", len(l.Suspects), l.Suspects)
	}
	s := l.Suspects[0]
	if s.Class != "Holder" || s.ObjectID != fmt.Sprintf("0x%x", holder) || s.Instances != 0 || s.RetainedBytes != holderBytes || s.Percent != 60 {
		t.Errorf("suspect %+v, want Holder 0x%x retaining %d bytes, 60%%", s, holder, holderBytes)
	}
	if a := s.AccumulationPoint; a == nil || a.ObjectID != fmt.Sprintf("0x%x", array) || a.Class != "java.lang.Object[]" || a.RetainedBytes != 16*n {
		t.Errorf("accumulation point %+v, want the Object[] 0x%x retaining %d", a, array, 16*n)
	}
	if want := []LeakClass{{Class: "Elem", Objects: n, RetainedBytes: 8 * n, Percent: 100 * 8 * n / float64(total)}}; fmt.Sprint(s.BiggestClasses) != fmt.Sprint(want) {
		t.Errorf("biggest classes %+v, want %+v", s.BiggestClasses, want)
	}
	if len(s.Path) != 2 || s.Path[0].ObjectID != s.ObjectID || s.Path[1].ObjectID != s.AccumulationPoint.ObjectID || s.RootKind != "jni-global" {
		t.Errorf("path %+v from %s, want the holder (a JNI global) then its array", s.Path, s.RootKind)
	}
}

// TestLeakPathRetainedBytes checks the retained size of each step of a
// suspect's path: a holder whose Object[] keeps 1000 elements, beside
// fillers, so the path is the holder, then its array.
func TestLeakPathRetainedBytes(t *testing.T) {
	const n = 1000
	const arrayBytes = 8*n + 8*n // the array's elements and the Elems' longs
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		elem := w.Class("Elem", nil, hproftest.Field{Name: "v", Type: hproftest.TypeLong})
		objects := w.Class("[Ljava/lang/Object;", nil)
		holderClass := w.Class("Holder", nil, hproftest.Field{Name: "elems", Type: hproftest.TypeObject})
		elems := make([]hproftest.ID, n)
		for k := range elems {
			elems[k] = w.Instance(elem, hproftest.Long(int64(k)))
		}
		holder := w.Instance(holderClass, hproftest.Ref(w.ObjectArray(objects, elems...)))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: holder, JNIRef: 1})
		fillers(w, 8, 4000)
	})
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	l := FindLeaks(h, r, LeakOptions{Threshold: 0.10, Classes: 5})
	want := [][]int64{{8 + arrayBytes, arrayBytes}}
	if got := l.PathRetainedBytes(r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("path retained bytes %v, want %v (the holder, then its array)", got, want)
	}
}

// The heap of loadSessionGroup: 20 Sessions of 400 bytes each, held by
// two Object[] roots, so that the Sessions are top-level and together
// retain 80% of the heap, and 4 fillers.
const (
	sessions, sessionBytes = 20, 400
	arrayBytes             = 8 * sessions
)

// loadSessionGroup loads the heap of TestLeakClassGroup and returns it
// with the ids of its two Object[] roots.
func loadSessionGroup(t *testing.T) (*model.Heap, [2]hproftest.ID) {
	const total = sessions * sessionBytes * 100 / 80
	const fillerBytes = (total - sessions*sessionBytes - 2*arrayBytes) / 4
	var arrays [2]hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		session := w.Class("Session", nil, hproftest.Field{Name: "buf", Type: hproftest.TypeObject})
		objects := w.Class("[Ljava/lang/Object;", nil)
		ids := make([]hproftest.ID, sessions)
		for k := range ids {
			ids[k] = w.Instance(session, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, sessionBytes-8))))
		}
		for k := range arrays {
			arrays[k] = w.ObjectArray(objects, ids...)
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: arrays[k], JNIRef: 1})
		}
		fillers(w, 4, fillerBytes)
	})
	return h, arrays
}

// TestLeakClassGroup has 20 instances of Session retaining 4% of the heap
// each, every one referenced from two Object[] GC roots: no single
// suspect, one class group of 20 whose paths all run through the same
// array (the first the search meets), its accumulation point.
func TestLeakClassGroup(t *testing.T) {
	h, arrays := loadSessionGroup(t)
	l := findLeaks(t, h, 0.10)
	if len(l.Suspects) != 1 {
		t.Fatalf("%d suspects, want the Session group alone: %+v", len(l.Suspects), l.Suspects)
	}
	s := l.Suspects[0]
	if s.Class != "Session" || s.Instances != sessions || s.ObjectID != "" || s.RetainedBytes != sessions*sessionBytes || s.Percent != 80 {
		t.Errorf("suspect %+v, want 20 Sessions retaining %d bytes, 80%%", s, sessions*sessionBytes)
	}
	a := s.AccumulationPoint
	if a == nil || a.Class != "java.lang.Object[]" || a.RetainedBytes != arrayBytes ||
		a.ObjectID != fmt.Sprintf("0x%x", arrays[0]) && a.ObjectID != fmt.Sprintf("0x%x", arrays[1]) {
		t.Fatalf("accumulation point %+v, want one of the Object[] roots", a)
	}
	if len(s.BiggestClasses) != 1 || s.BiggestClasses[0].Class != "byte[]" || s.BiggestClasses[0].Objects != sessions || s.BiggestClasses[0].RetainedBytes != sessions*(sessionBytes-8) {
		t.Errorf("biggest classes %+v, want 20 byte[] of %d bytes", s.BiggestClasses, sessionBytes-8)
	}
	if len(s.Path) != 2 || s.Path[0].ObjectID != a.ObjectID || s.Path[1].Class != "Session" {
		t.Errorf("path %+v, want the accumulation point, then a Session", s.Path)
	}
	// A threshold above the group's share: nothing.
	if l := findLeaks(t, h, 0.80); len(l.Suspects) != 0 {
		t.Errorf("threshold 80%%: %+v", l.Suspects)
	}
}

// TestLeakGroupWithoutConvergence has 20 Sessions that are GC roots
// themselves: their paths share no object, so the group has no
// accumulation point, and its path is the biggest instance alone.
func TestLeakGroupWithoutConvergence(t *testing.T) {
	var biggestID hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		session := w.Class("Session", nil, hproftest.Field{Name: "buf", Type: hproftest.TypeObject})
		for k := range 20 {
			id := w.Instance(session, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, 100+k))))
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: id, JNIRef: 1})
			biggestID = id
		}
	})
	l := findLeaks(t, h, 0.10)
	if len(l.Suspects) != 1 || l.Suspects[0].Instances != 20 {
		t.Fatalf("suspects %+v, want the 20 Sessions", l.Suspects)
	}
	s := l.Suspects[0]
	if s.AccumulationPoint != nil || len(s.Path) != 1 || s.Path[0].ObjectID != fmt.Sprintf("0x%x", biggestID) {
		t.Errorf("accumulation point %+v, path %+v; want none, and the biggest Session 0x%x alone", s.AccumulationPoint, s.Path, biggestID)
	}
}

// TestLeakDeepChain is a linked list deeper than the accumulation walk
// goes: each node keeps nearly all of its parent's retained size, so no
// node is the accumulation point and the path ends at the suspect, the
// list's head.
func TestLeakDeepChain(t *testing.T) {
	const n = accumulationDepth + 500
	var head hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		var next hproftest.ID
		for range n {
			next = w.Instance(link, hproftest.Ref(next))
		}
		head = next
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: head, JNIRef: 1})
	})
	l := findLeaks(t, h, 0.10)
	if len(l.Suspects) != 1 {
		t.Fatalf("suspects %+v, want the head", l.Suspects)
	}
	s := l.Suspects[0]
	if s.ObjectID != fmt.Sprintf("0x%x", head) || s.RetainedBytes != 8*n || s.Percent != 100 || s.AccumulationPoint != nil {
		t.Errorf("suspect %+v, want the head retaining all %d bytes, no accumulation point", s, 8*n)
	}
	if len(s.Path) != 1 || s.Path[0].ObjectID != s.ObjectID || len(s.BiggestClasses) != 1 || s.BiggestClasses[0].Class != "Link" {
		t.Errorf("path %+v, classes %+v; want the head alone, and the second Link beneath", s.Path, s.BiggestClasses)
	}
}

// linkedList loads a heap of one list of n Links of 8 field bytes, its
// head held by a JNI global; ids[k] is node k from the head.
func linkedList(t *testing.T, n int) (*model.Heap, []hproftest.ID) {
	t.Helper()
	ids := make([]hproftest.ID, n)
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		var next hproftest.ID
		for k := n - 1; k >= 0; k-- {
			next = w.Instance(link, hproftest.Ref(next))
			ids[k] = next
		}
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: ids[0], JNIRef: 1})
	})
	return h, ids
}

// TestLeakChainDepthBound walks down linked lists of n Links of 8 field
// bytes: node k retains 8(n−k), and the walk goes on into node k+1 while
// (n−k−1)/(n−k) ≥ 0.7, that is down to node n−3, n−3 steps. With 1002
// nodes that is the last step the walk takes; with 1003 it goes deeper
// than accumulationDepth and finds no accumulation point.
func TestLeakChainDepthBound(t *testing.T) {
	for _, n := range []int{accumulationDepth + 2, accumulationDepth + 3} {
		h, ids := linkedList(t, n)
		l := findLeaks(t, h, 0.10)
		if len(l.Suspects) != 1 || l.Suspects[0].ObjectID != fmt.Sprintf("0x%x", ids[0]) {
			t.Fatalf("%d nodes: suspects %+v, want the head", n, l.Suspects)
		}
		a := l.Suspects[0].AccumulationPoint
		switch {
		case n-3 < accumulationDepth && (a == nil || a.ObjectID != fmt.Sprintf("0x%x", ids[n-3]) || a.RetainedBytes != 3*8):
			t.Errorf("%d nodes: accumulation point %+v, want node %d (0x%x) retaining 24 bytes", n, a, n-3, ids[n-3])
		case n-3 >= accumulationDepth && a != nil:
			t.Errorf("%d nodes: accumulation point %+v, want none", n, a)
		}
	}
}

// walkedGraph is a random graph loaded as a heap, with its retention and
// the accumulation walk the definition describes, made over the tree
// NaiveDominators gives with child lists.
type walkedGraph struct {
	objs []model.ObjectIndex
	r    *graph.Retention
	// idom is each node's immediate dominator (-1: the virtual root).
	idom  []int
	bytes []int64
	// tops are the nodes at the top of the tree that retain something.
	tops     []int
	children [][]int
}

// newWalkedGraph loads the random graph of seed.
func newWalkedGraph(t *testing.T, seed uint64) *walkedGraph {
	t.Helper()
	g := analysistest.NewRandomGraph(seed)
	h, objs, _ := g.Load(t)
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	w := &walkedGraph{objs: objs, r: r, idom: analysistest.NaiveDominators(g.Succ, g.Roots)}
	_, w.bytes = g.NaiveRetained(w.idom)
	w.children = make([][]int, len(w.idom))
	for v, d := range w.idom {
		switch {
		case d >= 0:
			w.children[d] = append(w.children[d], v)
		case d == -1 && w.bytes[v] > 0:
			w.tops = append(w.tops, v)
		}
	}
	return w
}

// walk is the accumulation point of node p: down to the child retaining
// most while it keeps accumulationRatio of its parent; -1 past
// accumulationDepth steps.
func (w *walkedGraph) walk(p int) int {
	for range accumulationDepth {
		best := -1
		for _, c := range w.children[p] {
			if best < 0 || w.bytes[c] > w.bytes[best] {
				best = c
			}
		}
		if best < 0 || float64(w.bytes[best]) < accumulationRatio*float64(w.bytes[p]) {
			return p
		}
		p = best
	}
	return -1
}

// check compares the points got gives for nodes with the walks from them,
// and counts the walks that left their start.
func (w *walkedGraph) check(t *testing.T, where string, nodes []int, got func([]model.ObjectIndex) map[model.ObjectIndex]model.ObjectIndex) (left int) {
	t.Helper()
	var objs []model.ObjectIndex
	for _, v := range nodes {
		objs = append(objs, w.objs[v])
	}
	points := got(objs)
	for _, v := range nodes {
		want, wantObj := w.walk(v), model.NoObject
		if want >= 0 {
			wantObj = w.objs[want]
		}
		if points[w.objs[v]] != wantObj {
			t.Errorf("%s node %d: accumulation point %d, want node %d (%d)", where, v, points[w.objs[v]], want, wantObj)
		}
		if want != v {
			left++
		}
	}
	return left
}

// TestAccumulationPointsMatchWalk compares the accumulation points of the
// objects at the top of the dominator tree of random graphs, those that
// retain something, with the walk the definition describes.
func TestAccumulationPointsMatchWalk(t *testing.T) {
	walked, innerWalked := 0, 0
	for seed := range uint64(30) {
		w := newWalkedGraph(t, seed)
		points := func(objs []model.ObjectIndex) map[model.ObjectIndex]model.ObjectIndex {
			return accumulationPoints(w.r, objs)
		}
		walked += w.check(t, fmt.Sprintf("seed %d: top", seed), w.tops, points)
		// Tops inside the tree (as the top of a heap selection gives):
		// the objects one level below the top.
		var inner []int
		for v, d := range w.idom {
			if d >= 0 && w.idom[d] == -1 && w.bytes[v] > 0 {
				inner = append(inner, v)
			}
		}
		innerWalked += w.check(t, fmt.Sprintf("seed %d: inner", seed), inner, points)
	}
	if walked < 10 || innerWalked < 10 {
		t.Errorf("only %d walks from the top and %d from inside left their start: the graphs test little", walked, innerWalked)
	}
}

// TestLeakGroupMembersOutOfCore finds the leaks of loadSessionGroup's heap
// under a one-byte memory budget: the report is the one found in memory,
// only the group that passes (the 20 Sessions) lists its members, in a
// mapped table of 4 bytes each, and freeing the candidates unmaps it.
func TestLeakGroupMembersOutOfCore(t *testing.T) {
	h, _ := loadSessionGroup(t)
	want := findLeaks(t, h, 0.10)
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	restore := bigmem.SetBudget(1, t.TempDir())
	defer restore()
	before := bigmem.MappedBytes()
	passes := func(b int64) bool { return float64(b) > 0.10*float64(r.ReachableBytes()) }
	cands, free := leakCandidates(h, r, newClassKeyer(h), r.EachTopLevel, passes)
	mapped := bigmem.MappedBytes() - before
	if len(cands) != 1 || !cands[0].group || cands[0].class != "Session" || len(cands[0].members) != sessions {
		t.Errorf("candidates %+v, want the group of %d Sessions alone", cands, sessions)
	}
	if mapped != 4*sessions {
		t.Errorf("%d bytes mapped for the members, want %d: 4 for each Session, none for the groups that do not pass", mapped, 4*sessions)
	}
	free()
	if left := bigmem.MappedBytes() - before; left != 0 {
		t.Errorf("%d bytes still mapped after free", left)
	}
	if got := findLeaks(t, h, 0.10); !reflect.DeepEqual(got, want) {
		t.Errorf("out of core:\n%+v\nin memory:\n%+v", got, want)
	}
}
