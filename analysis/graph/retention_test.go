package graph

import (
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestDominatorsMatchDefinition compares the dominator tree of random
// graphs with the one the definition gives, and the retained sizes with
// those that tree gives, also when they are added up again in another
// size mode over the kept tree (as from an index).
func TestDominatorsMatchDefinition(t *testing.T) {
	for seed := range uint64(30) {
		g := analysistest.NewRandomGraph(seed)
		h, objs, mirrors := g.Load(t)
		r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
		if err != nil {
			t.Fatal(err)
		}
		jvm, err := ComputeRetention(h, RetentionOptions{Size: model.SizeJVM})
		if err != nil {
			t.Fatal(err)
		}
		again := jvm.InSize(model.SizeFields)
		want := analysistest.NaiveDominators(g.Succ, g.Roots)
		wantObjects, wantBytes := g.NaiveRetained(want)
		checkTreeLists(t, seed, r, want, mirrors, func(v int) model.ObjectIndex { return objs[v] })
		reached, reachedBytes, lostBytes := int64(len(mirrors)), int64(0), int64(0)
		for v, obj := range objs {
			switch want[v] {
			case -2:
				lostBytes += int64(8 * len(g.Succ[v]))
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
			reachedBytes += int64(8 * len(g.Succ[v]))
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
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
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
		obj := analysistest.Lookup(t, h, ids[k])
		if got, want := r.RetainedObjects(obj), int64(n-k); got != want {
			t.Errorf("node %d retains %d objects, want %d", k, got, want)
		}
		// a Link's only field is an 8-byte reference
		if got, want := r.RetainedBytes(obj), int64(8*(n-k)); got != want {
			t.Errorf("node %d retains %d bytes, want %d", k, got, want)
		}
		if k > 0 {
			if d := r.ImmediateDominator(obj); d != analysistest.Lookup(t, h, ids[k-1]) {
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
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
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
	if r.Reachable(analysistest.Lookup(t, h, head)) || !r.Reachable(analysistest.Lookup(t, h, live)) {
		t.Error("reachability wrong")
	}
	r, err = ComputeRetention(h, RetentionOptions{Size: model.SizeFields, KeepUnreachable: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.RetainedObjects(analysistest.Lookup(t, h, head)); got != 2 {
		t.Errorf("unreachable head retains %d objects, want 2", got)
	}
	if d := r.ImmediateDominator(analysistest.Lookup(t, h, head)); d != model.NoObject {
		t.Errorf("unreachable head: immediate dominator %d, want the virtual root", d)
	}
	a, b := analysistest.Lookup(t, h, cycleA), analysistest.Lookup(t, h, cycleB)
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

// TestChainToDamagedTree gives chainTo path trees as a damaged index
// could hold them: a loop, and a parent past the last object. Neither
// hangs nor crashes; both give no path. A sound tree gives its path.
func TestChainToDamagedTree(t *testing.T) {
	sound := []uint32{rootParent, 0, 1}
	if got := chainTo(plainParents(sound), 2); !slices.Equal(got, []model.ObjectIndex{0, 1, 2}) {
		t.Errorf("sound tree: %v, want [0 1 2]", got)
	}
	for name, parent := range map[string][]uint32{
		"loop":         {2, 0, 1},
		"out of range": {rootParent, 7, 1},
	} {
		if got := chainTo(plainParents(parent), 2); got != nil {
			t.Errorf("%s: %v, want no path", name, got)
		}
	}
}

// TestRetainedSizesAddUpAcrossFourGiB: own sizes, the leaves added into
// their dominator side by side, then the other objects added up give the
// sums of their sizes, also when a sum passes 4 GiB (which the 32-bit
// sizes keep apart) and for an object of 4 GiB or more; the leaves the
// virtual root dominates are returned apart, and an unreached object
// counts for nothing.
func TestRetainedSizesAddUpAcrossFourGiB(t *testing.T) {
	const gib = int64(1) << 30
	own := []int64{16, 3 * gib, 2 * gib, 5, 6 * gib, 40, 7, 9}
	r := &Retention{idom: []model.ObjectIndex{VirtualRoot, 0, 0, 0, VirtualRoot, 0, 5, NotReached}}
	leaf := []uint64{0b1011110} // all but 0, the dominator of the others, and 5, which dominates 6
	sizes := &ownSizer{
		bytes: newRetainedSizes(len(own)),
		sizes: func(lo, hi int, to []int64) { copy(to, own[lo:hi]) },
		own:   make([][]int64, 1),
		large: make([][]model.ObjectIndex, 1),
	}
	sizes.set(0, 0, len(own), r.idom)
	bytes := sizes.done()
	for i, want := range own {
		if i != 7 && bytes.at(i) != want {
			t.Errorf("object %d: own size %d, want %d", i, bytes.at(i), want)
		}
	}
	count := make([]uint32, len(own))
	objects, root := r.addLeaves(bytes, count, leaf)
	if objects != 1 || root != 6*gib {
		t.Errorf("the virtual root gets %d objects of %d bytes from the leaves, want 1 of %d", objects, root, 6*gib)
	}
	for _, i := range []int{1, 2, 3, 4, 6} {
		if bytes.at(i) != own[i] || count[i] != 1 {
			t.Errorf("leaf %d retains %d objects of %d bytes, want 1 of %d", i, count[i], bytes.at(i), own[i])
		}
	}
	objects, root = r.addUp(bytes, count, func(visit func(model.ObjectIndex)) {
		visit(5)
		visit(0)
	})
	if got := bytes.at(5); got != 47 || count[5] != 2 {
		t.Errorf("object 5 retains %d objects of %d bytes, want 2 of 47", count[5], got)
	}
	want := 16 + 5*gib + 5 + 47
	if got := bytes.at(0); got != want || count[0] != 6 {
		t.Errorf("object 0 retains %d objects of %d bytes, want 6 of %d", count[0], got, want)
	}
	if objects != 6 || root != want {
		t.Errorf("the virtual root gets %d objects of %d bytes from the others, want 6 of %d", objects, root, want)
	}
	if bytes.at(7) != 0 || count[7] != 0 {
		t.Errorf("the unreached object retains %d objects of %d bytes, want none", count[7], bytes.at(7))
	}
}

// TestDominatedGivesTheFinalTree checks that RetentionOptions.Dominated
// is called once, with the tree's own immediate dominators by object, and
// that they are final then: those the definition gives, before the
// retained sizes are added up.
func TestDominatedGivesTheFinalTree(t *testing.T) {
	for seed := range uint64(10) {
		g := analysistest.NewRandomGraph(seed)
		h, objs, _ := g.Load(t)
		var calls int
		var given, snapshot []model.ObjectIndex
		var phases []string
		r, err := ComputeRetention(h, RetentionOptions{
			Size:  model.SizeFields,
			Phase: func(name string) { phases = append(phases, name) },
			Dominated: func(idom []model.ObjectIndex) {
				calls++
				given, snapshot = idom, slices.Clone(idom)
				if last := phases[len(phases)-1]; last != "retained sizes" {
					t.Errorf("seed %d: given the dominators during %q, want during the retained sizes", seed, last)
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Fatalf("seed %d: Dominated called %d times, want once", seed, calls)
		}
		if idom := r.ImmediateDominators(); len(given) != len(idom) || &given[0] != &idom[0] {
			t.Errorf("seed %d: Dominated was not given the tree's own slice", seed)
		}
		want := analysistest.NaiveDominators(g.Succ, g.Roots)
		for v, obj := range objs {
			wantDom := NotReached
			switch {
			case want[v] == -1:
				wantDom = VirtualRoot
			case want[v] >= 0:
				wantDom = objs[want[v]]
			}
			if snapshot[obj] != wantDom {
				t.Errorf("seed %d: node %d had immediate dominator %d when given, want %d", seed, v, snapshot[obj], wantDom)
			}
		}
	}
}
