package graph

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// RetainerOptions choose the targets and paths of Retainers.
type RetainerOptions struct {
	// Objects are the target objects; Class, when set, targets every
	// instance of the matching classes instead, and their paths are
	// merged by class chain.
	Objects []model.ObjectIndex
	Class   *regexp.Regexp
	// Paths is how many paths to show per target object, or merged
	// paths for a class target.
	Paths int
	// IncludeWeak follows Reference.referent edges too.
	IncludeWeak bool
	// Strong is the tree of strong shortest paths when it was computed
	// before (kept in an index); nil computes it. Not used with
	// IncludeWeak.
	Strong *PathTree
	// Heaps selects the Android heaps whose instances Class targets;
	// Objects are taken as given.
	Heaps model.HeapSelection
	// Chains, when set, are Strong's class chains kept in an index: a
	// Class target over every heap is answered from them.
	Chains *ClassChains
}

// PathTree is the breadth-first tree of the retention graph from the GC
// roots and system classes: per object, the object before it on a
// shortest path from a root.
type PathTree struct {
	parent parents
}

// StrongPaths computes the tree of shortest paths over strong references.
func StrongPaths(h *model.Heap) *PathTree {
	return &PathTree{parent: plainParents(shortestPathTree(h, false))}
}

// StrongPathsWithChains is StrongPaths with the tree's class chains,
// worked out level by level as the search finds them (chainLevels). It is
// meant to run beside the dominator tree (ComputeRetention), and searches
// on one processor where that costs less (searchPaths).
func StrongPathsWithChains(h *model.Heap) (*PathTree, *ClassChains) {
	var c *chainLevels
	parent := searchPaths(h, false, true, func(parent []uint32, prevAt uint32, prev, level []model.ObjectIndex) {
		if c == nil {
			c = newChainLevels(h, parent)
			c.positions = true
		}
		c.add(prevAt, prev, level)
	})
	t := &PathTree{parent: plainParents(parent)}
	if c == nil {
		c = newChainLevels(h, parent)
	}
	return t, c.summary(t)
}

// Paths gives a shortest path from a GC root to each of objs, in their
// order, from the tree alone: the one whose last retainer is the
// target's parent in the tree, the first object in breadth-first order
// that references it. ShortestPaths may pick another of the same length:
// it takes the last retainer of least object index, which costs a pass
// over every reference. A tree that does not lead from an object to a
// root (a corrupt index) is an error.
func (t *PathTree) Paths(objs []model.ObjectIndex) (RetainerPaths, error) {
	var out RetainerPaths
	for _, obj := range objs {
		out.Targets++
		if int(obj) >= t.parent.len() {
			return RetainerPaths{}, fmt.Errorf("paths: object %d of %d", obj, t.parent.len())
		}
		if t.parent.at(obj) == noParent {
			out.Unreached++
			continue
		}
		c, err := t.chain(obj)
		if err != nil {
			return RetainerPaths{}, err
		}
		out.Chains = append(out.Chains, c)
		out.Objects = append(out.Objects, 1)
	}
	return out, nil
}

// ChainOf is ChainTo for a tree read from an index that was not checked
// as a whole (CheckIndexed), for a question that walks a few chains only:
// nil when no root reaches obj, an error wrapping store.ErrCorrupt when
// the tree does not lead from obj to a root. A cycle is found within
// about twice the steps up to and around it.
func (t *PathTree) ChainOf(obj model.ObjectIndex) ([]model.ObjectIndex, error) {
	if int(obj) >= t.parent.len() {
		return nil, fmt.Errorf("%w: object %d of %d in the shortest path tree", store.ErrCorrupt, obj, t.parent.len())
	}
	if t.parent.at(obj) == noParent {
		return nil, nil
	}
	return t.chain(obj)
}

// chain is chainTo of the tree, reached object obj, checked: it first
// counts the steps up to the root, so that a parent out of range or a
// cycle is found before anything is allocated for it. A cycle is found
// as Brent's method finds one: a mark left at every power of two steps
// is met again within a lap of the cycle once the walk is on it.
func (t *PathTree) chain(obj model.ObjectIndex) ([]model.ObjectIndex, error) {
	n := t.parent.len()
	steps, mark, lap := 1, obj, 1
	for x := obj; t.parent.at(x) != rootParent; {
		if int(t.parent.at(x)) >= n || steps >= n {
			return nil, fmt.Errorf("%w: the shortest path tree does not lead from object %d to a root", store.ErrCorrupt, obj)
		}
		x = model.ObjectIndex(t.parent.at(x))
		if x == mark {
			return nil, fmt.Errorf("%w: the shortest path tree has a cycle through object %d", store.ErrCorrupt, x)
		}
		if steps++; steps == lap*2 {
			mark, lap = x, lap*2
		}
	}
	c := make([]model.ObjectIndex, steps)
	for x, k := obj, steps-1; k >= 0; x, k = model.ObjectIndex(t.parent.at(x)), k-1 {
		c[k] = x
	}
	return c, nil
}

// ChainWithin is ChainTo for a path of at most most objects: nil when
// obj's is longer (or there is none), found in at most most steps.
func (t *PathTree) ChainWithin(obj model.ObjectIndex, most int) []model.ObjectIndex {
	if most < 1 {
		return nil
	}
	steps := 1
	for x := obj; t.parent.at(x) != rootParent; x = model.ObjectIndex(t.parent.at(x)) {
		if steps++; steps > most || int(t.parent.at(x)) >= t.parent.len() {
			return nil
		}
	}
	return t.ChainTo(obj)
}

// Tree returns the shortest path tree o asks for: Strong when it is given
// and IncludeWeak is not, else one computed now.
func (o RetainerOptions) Tree(h *model.Heap) *PathTree {
	return &PathTree{parent: o.tree(h)}
}

// ChainTo is the path of the tree from a root to obj, nil when no root
// reaches obj or the tree does not lead from it to a root.
func (t *PathTree) ChainTo(obj model.ObjectIndex) []model.ObjectIndex {
	return chainTo(t.parent, obj)
}

// tree returns the shortest path tree o asks for.
func (o RetainerOptions) tree(h *model.Heap) parents {
	if o.Strong != nil && !o.IncludeWeak {
		return o.Strong.parent
	}
	return plainParents(shortestPathTree(h, o.IncludeWeak))
}

// RetainerPaths are shortest paths from GC roots, before their steps are
// labeled: each chain runs from a GC root object to a target.
type RetainerPaths struct {
	Chains [][]model.ObjectIndex
	// Objects counts, per chain, the targets whose shortest path has
	// the same class chain (1 for object targets).
	Objects []int64
	// Unreached counts the targets no path reaches.
	Unreached int64
	// Targets counts the targets.
	Targets int64
}

// noParent and rootParent mark, in the breadth-first search, objects not
// reached and GC root objects.
const (
	noParent   = model.None
	rootParent = model.None - 1
)

// ShortestPaths finds shortest paths from the GC roots (and system classes)
// to the targets by a breadth-first search over the retention graph
// (strong references and each object's class; with IncludeWeak also
// referents). For an object target it gives up to Paths paths, each
// through a different last retainer, shortest first, leaving out the
// retainers the target itself holds; for a class target,
// one shortest path per instance, merged by class chain, the chains
// holding most instances first.
func ShortestPaths(h *model.Heap, o RetainerOptions) RetainerPaths {
	parent := o.tree(h)
	paths := max(o.Paths, 1)
	if o.Class != nil {
		return classPaths(h, o, parent, paths)
	}
	var out RetainerPaths
	targets := lastRetainers(h, o, parent, &out)
	// The paths are ranked by their lengths, and only those kept are
	// made: a target's last retainers may lie deep in a long list, where
	// a path for each of thousands would not fit in memory.
	depths := newTreeDepths(parent)
	for _, t := range o.Objects {
		if retainers, ok := targets[t]; ok {
			for _, c := range targetPaths(parent, depths, t, retainers, paths) {
				out.Chains = append(out.Chains, c)
				out.Objects = append(out.Objects, 1)
			}
		}
	}
	return out
}

// ClassPathsChecked is ShortestPaths for a Class target that o.Chains
// answer over o.Strong, a tree read from an index and not checked as a
// whole (PathTree.CheckIndexed): each chain is checked as it is walked
// (ChainOf), and the first that does not lead to a root is the error,
// wrapping store.ErrCorrupt. ok is false when the chains cannot answer
// o; ShortestPaths, on a checked tree, must then.
func ClassPathsChecked(h *model.Heap, o RetainerOptions) (p RetainerPaths, ok bool, err error) {
	paths := max(o.Paths, 1)
	if o.Class == nil || o.Strong == nil || o.IncludeWeak || !o.Chains.answers(o, o.Strong.parent, paths) {
		return RetainerPaths{}, false, nil
	}
	p, err = o.Chains.classPaths(MatchingClasses(h, o.Class), paths, o.Strong.ChainOf)
	return p, err == nil, err
}

// lastRetainers maps each reached object target of o to its last
// retainers: every reached object referencing it (through a referent
// too with IncludeWeak), in object order. It counts the targets and the
// unreached ones in out.
func lastRetainers(h *model.Heap, o RetainerOptions, parent parents, out *RetainerPaths) map[model.ObjectIndex][]model.ObjectIndex {
	// isTarget keeps the pass over every reference below from looking
	// each one up in the map.
	targets := map[model.ObjectIndex][]model.ObjectIndex{}
	isTarget := NewObjectBits(h.NumObjects())
	for _, t := range o.Objects {
		out.Targets++
		if parent.at(t) == noParent {
			out.Unreached++
			continue
		}
		targets[t] = nil
		isTarget.Add(t)
	}
	g := retentionGraph{h: h}
	weak := h.Referents()
	for i := range h.NumObjects() {
		u := model.ObjectIndex(i)
		if parent.at(u) == noParent {
			continue
		}
		g.forEachSucc(u, func(s model.ObjectIndex) {
			if !isTarget.Has(s) {
				return
			}
			if prev, ok := targets[s]; ok && s != u && (len(prev) == 0 || prev[len(prev)-1] != u) {
				targets[s] = append(prev, u)
			}
		})
		if o.IncludeWeak {
			for w := sort.Search(len(weak), func(w int) bool { return weak[w].From >= u }); w < len(weak) && weak[w].From == u; w++ {
				if to := weak[w].To; isTarget.Has(to) {
					targets[to] = append(targets[to], u)
				}
			}
		}
	}
	return targets
}

// targetPaths gives up to paths shortest paths to target t, which a root
// reaches, each through another of its last retainers, shortest first.
func targetPaths(parent parents, depths *treeDepths, t model.ObjectIndex, retainers []model.ObjectIndex, paths int) [][]model.ObjectIndex {
	type lastRetainer struct {
		u      model.ObjectIndex
		length int
	}
	var last []lastRetainer
	if parent.at(t) == rootParent {
		last = append(last, lastRetainer{u: model.NoObject, length: 1})
	}
	for _, u := range retainers {
		last = append(last, lastRetainer{u: u, length: depths.of(u) + 2})
	}
	sort.SliceStable(last, func(a, b int) bool { return last[a].length < last[b].length })
	// A last retainer whose own shortest path runs through the target is
	// held by the target: the chain through it would come back to the
	// target, a cycle rather than a way the target is kept alive.
	held := &treeDescendants{parent: parent, top: t, depth: depths.of(t), below: map[model.ObjectIndex]bool{}}
	var out [][]model.ObjectIndex
	for _, l := range last {
		if len(out) == paths {
			break
		}
		c := []model.ObjectIndex{t}
		if l.u != model.NoObject {
			if held.has(l.u, l.length-2) {
				continue
			}
			c = append(chainTo(parent, l.u), t)
		}
		out = append(out, c)
	}
	return out
}

// treeDescendants tells which objects lie below top in a shortest path
// tree. Answers are kept for every object climbed through, so that the
// many retainers of one target that hang below it in the same long list
// are each climbed once.
type treeDescendants struct {
	parent parents
	top    model.ObjectIndex
	depth  int // top's depth
	below  map[model.ObjectIndex]bool
}

// has reports whether top is on the tree path from a root to u, which
// lies at the given depth; u itself counts as below when it is top.
func (s *treeDescendants) has(u model.ObjectIndex, depth int) bool {
	var climbed []model.ObjectIndex
	x, d, found := u, depth, false
	for {
		if x == s.top {
			found = true
			break
		}
		if d <= s.depth {
			break
		}
		if b, ok := s.below[x]; ok {
			found = b
			break
		}
		climbed = append(climbed, x)
		x, d = model.ObjectIndex(s.parent.at(x)), d-1
	}
	for _, y := range climbed {
		s.below[y] = found
	}
	return found
}

// treeDepths are the depths in a shortest path tree (0 for a root) of
// the objects asked for, and of those on their paths, kept as they are
// found: the paths of many objects of one long list share most of their
// objects, and each is climbed once.
type treeDepths struct {
	parent parents
	depth  map[model.ObjectIndex]int
}

func newTreeDepths(parent parents) *treeDepths {
	return &treeDepths{parent: parent, depth: map[model.ObjectIndex]int{}}
}

// of is the depth of u, which a root reaches. It climbs to a root or to
// an object of known depth, then climbs again to note the depth of each
// object on the way.
func (d *treeDepths) of(u model.ObjectIndex) int {
	x, steps, known := u, 0, 0
	for {
		if k, ok := d.depth[x]; ok {
			known = k
			break
		}
		if d.parent.at(x) == rootParent {
			break
		}
		x = model.ObjectIndex(d.parent.at(x))
		steps++
	}
	for y, k := u, known+steps; k > known; y, k = model.ObjectIndex(d.parent.at(y)), k-1 {
		d.depth[y] = k
	}
	d.depth[x] = known
	return known + steps
}

// MaxShownObjects is the most objects a chain is shown with; a longer one
// (a path along a long linked list) shows its first and last
// ShownEnds objects, and the objects between are counted by class
// (Shown). Kept answers never hold a chain that long.
const (
	MaxShownObjects = 256
	ShownEnds       = 64
)

// Shown splits chain c into what is shown of it: all of it as head when
// it has at most MaxShownObjects objects; else its first and last
// ShownEnds objects as head and tail and those between as left.
func Shown(c []model.ObjectIndex) (head, left, tail []model.ObjectIndex) {
	if len(c) <= MaxShownObjects {
		return c, nil, nil
	}
	return c[:ShownEnds], c[ShownEnds : len(c)-ShownEnds], c[len(c)-ShownEnds:]
}

// eachShownStep calls fn with the references from one object to the next
// that describing what is shown of chain c needs (Shown): between the
// objects of its head, from the last object left out to the tail's first,
// and between the objects of its tail.
func eachShownStep(c []model.ObjectIndex, fn func(from, to model.ObjectIndex)) {
	head, left, tail := Shown(c)
	for s := 1; s < len(head); s++ {
		fn(head[s-1], head[s])
	}
	if len(left) == 0 {
		return
	}
	fn(left[len(left)-1], tail[0])
	for s := 1; s < len(tail); s++ {
		fn(tail[s-1], tail[s])
	}
}

// Sources lists the objects whose labeled references and root threads
// describing the paths needs: the sources of the steps shown of each
// chain (eachShownStep), and the thread objects of the roots the chains
// start at.
func (p RetainerPaths) Sources(h *model.Heap) []model.ObjectIndex {
	seen := map[model.ObjectIndex]bool{}
	var out []model.ObjectIndex
	add := func(i model.ObjectIndex) {
		if i != model.NoObject && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	for _, c := range p.Chains {
		eachShownStep(c, func(from, _ model.ObjectIndex) { add(from) })
	}
	for _, t := range p.RootThreadObjects(h) {
		add(t)
	}
	return out
}

// RootThreadObjects lists the thread objects of the roots the chains
// start at, each once: the Sources that name the paths' root threads.
func (p RetainerPaths) RootThreadObjects(h *model.Heap) []model.ObjectIndex {
	seen := map[model.ObjectIndex]bool{}
	var out []model.ObjectIndex
	for _, c := range p.Chains {
		rt, ok := RootOf(h, c[0])
		if !ok || rt.Thread < 0 {
			continue
		}
		if t := h.Threads[rt.Thread].Object; t != model.NoObject && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Steps maps the source of each step shown of the chains
// (eachShownStep) to the objects it leads to: the references whose labels
// describing the paths needs (see model.ReadLabelsTo).
func (p RetainerPaths) Steps() map[model.ObjectIndex][]model.ObjectIndex {
	next := map[model.ObjectIndex][]model.ObjectIndex{}
	for _, c := range p.Chains {
		eachShownStep(c, func(from, to model.ObjectIndex) {
			if !slices.Contains(next[from], to) {
				next[from] = append(next[from], to)
			}
		})
	}
	return next
}

// ThreadNameStrings lists the java.lang.String objects that the "name"
// fields of the root threads of the paths reference, given the labeled
// references of Sources.
func (p RetainerPaths) ThreadNameStrings(h *model.Heap, labels map[model.ObjectIndex][]model.LabeledRef) []model.ObjectIndex {
	var out []model.ObjectIndex
	for _, c := range p.Chains {
		if rt, ok := RootOf(h, c[0]); ok && rt.Thread >= 0 {
			if s := ThreadNameString(h, rt.Thread, labels); s != model.NoObject {
				out = append(out, s)
			}
		}
	}
	return out
}

// ThreadNameString is the java.lang.String object that the "name" field
// of thread's object references, by the labeled references labels;
// NoObject when they do not say.
func ThreadNameString(h *model.Heap, thread int32, labels map[model.ObjectIndex][]model.LabeledRef) model.ObjectIndex {
	for _, l := range labels[h.Threads[thread].Object] {
		if l.Label == "name" {
			return l.To
		}
	}
	return model.NoObject
}

// RootOf returns the first GC root record naming object i.
func RootOf(h *model.Heap, i model.ObjectIndex) (model.Root, bool) {
	for _, rt := range h.Roots {
		if rt.Object == i {
			return rt, true
		}
	}
	return model.Root{}, false
}

// chainTo is the path of the shortest path tree from a root to obj, nil
// when no root reaches obj.
func chainTo(parent parents, obj model.ObjectIndex) []model.ObjectIndex {
	if parent.at(obj) == noParent {
		return nil
	}
	var c []model.ObjectIndex
	for x := obj; ; x = model.ObjectIndex(parent.at(x)) {
		c = append(c, x)
		if parent.at(x) == rootParent {
			break
		}
		// A tree read from a damaged index may loop or point nowhere:
		// no path rather than a hang or a crash.
		if int(parent.at(x)) >= parent.len() || len(c) > parent.len() {
			return nil
		}
	}
	for a, b := 0, len(c)-1; a < b; a, b = a+1, b-1 {
		c[a], c[b] = c[b], c[a]
	}
	return c
}
