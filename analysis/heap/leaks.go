package heap

import (
	"iter"
	"slices"
	"sort"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// Leak suspects follow Eclipse MAT's Leak Suspects report:
//
//   - the heap's total is the retained size of the virtual root (the
//     reachable heap, or every object when unreachable ones are kept);
//   - a single-object suspect is an object the virtual root immediately
//     dominates that retains more than the threshold share of the total:
//     the highest object of its dominator subtree that passes, so no
//     object below it is reported on its own;
//   - a class group is a class whose other top-of-tree instances, none a
//     suspect by itself, retain more than the threshold together.
//
// The accumulation point of a single object is found by walking down the
// dominator tree from it into the child that retains most, as long as
// that child keeps at least accumulationRatio of its parent's retained
// size. That of a class group is where the shortest paths of its
// instances converge: walking down from the GC roots along the object
// that most of the remaining paths run through, as long as more than
// groupPathShare of all paths do, and stopping above a child through
// whose paths less than accumulationRatio of the group's retained size
// runs; when the paths part before that, the group has no accumulation
// point.
const (
	// accumulationRatio is the share of its parent's retained size the
	// next step of an accumulation walk must keep (MAT's value).
	accumulationRatio = 0.7
	// accumulationDepth bounds the walk down the dominator tree: a deeper
	// chain (a long linked list) has no single accumulation point.
	accumulationDepth = 1000
	// groupPathShare is the share of a class group's paths that must run
	// through an object for it to be on their common path (MAT's value).
	groupPathShare = 0.8
	// groupPathSample bounds the instances of a class group whose paths
	// are followed: the ones that retain most.
	groupPathSample = 10000
	// beneathChunk is how many objects a worker of biggestClassesBeneath
	// takes at a time.
	beneathChunk = 1 << 16
)

// LeakOptions choose the suspects of FindLeaks.
type LeakOptions struct {
	// Threshold is the share of the total (0 < Threshold <= 1) that a
	// suspect retains more than.
	Threshold float64
	// Classes is how many classes to list beneath each suspect.
	Classes int
	// Strong is the tree of strong shortest paths when it was computed
	// before (kept in an index); nil computes it.
	Strong *graph.PathTree
	// Points are the accumulation points found before (an index's,
	// checked as ReadAccumulationPoints reads them); nil, or points that
	// lack a suspect or are of another tree, finds them in a pass over
	// the tree.
	Points *AccumulationPoints
	// Heaps selects the Android heaps whose objects are suspected: the
	// suspects are then drawn from the selected objects no other selected
	// object dominates, and the total is what those retain. Suspects in
	// the app heap come first.
	Heaps model.HeapSelection
}

// sharedHeaps are the heaps of an Android dump that every app shares,
// which the app's developer cannot act on.
var sharedHeaps = []string{"zygote", "image"}

// LeakHeaps returns the heaps of h whose objects leaks suspects unless
// asked otherwise: every heap but the zygote and image heaps, which all
// apps share; nil, every object, for a dump without heaps.
func LeakHeaps(h *model.Heap) []string {
	if len(h.HeapNames()) == 0 {
		return nil
	}
	var heaps []string
	for _, name := range h.HeapNames() {
		if !slices.Contains(sharedHeaps, name) {
			heaps = append(heaps, name)
		}
	}
	return heaps
}

// AppHeap is the heap of an Android dump that holds what the app itself
// allocated, as opposed to the zygote and image heaps every app shares.
const AppHeap = "app"

// AccumulationPoint is the object below which a suspect's memory fans
// out.
type AccumulationPoint struct {
	ObjectID      string  `json:"object_id"`
	Class         string  `json:"class"`
	RetainedBytes int64   `json:"retained_bytes"`
	Percent       float64 `json:"percent"`
}

// LeakClass is one class of the objects a suspect's accumulation point
// immediately dominates (for a class group: its instances).
type LeakClass struct {
	Class         string  `json:"class"`
	Objects       int64   `json:"objects"`
	RetainedBytes int64   `json:"retained_bytes"`
	Percent       float64 `json:"percent"`
}

// LeakSuspect is one single-object suspect (ObjectID set) or class group
// (Instances set). Percentages are of the total.
type LeakSuspect struct {
	// Class is the class of the suspect object, or of the group's
	// instances: for a class object, java.lang.Class.
	Class string `json:"class"`
	// Label names a single-object suspect for people: its class, or
	// "class NAME" for the class object of NAME.
	Label     string `json:"label,omitempty"`
	ObjectID  string `json:"object_id,omitempty"`
	Instances int64  `json:"instances,omitempty"`
	// Heap is the Android heap of the suspect (of a class group: of its
	// biggest instance).
	Heap          string  `json:"heap,omitempty"`
	RetainedBytes int64   `json:"retained_bytes"`
	Percent       float64 `json:"percent"`
	// AccumulationPoint is nil when there is none: a class group whose
	// paths part, or a dominator chain deeper than the walk goes.
	AccumulationPoint *AccumulationPoint `json:"accumulation_point"`
	// BiggestClasses groups by class the objects the accumulation point
	// (without one, the suspect; for a class group, its instances)
	// immediately dominates, biggest retained first.
	BiggestClasses []LeakClass `json:"biggest_classes"`
	// Path is a shortest strong path from a GC root through the suspect
	// to its accumulation point (without one, to the suspect; for a class
	// group, to its biggest instance on the common path of the group's
	// paths), empty when no GC root reaches the suspect. The Root fields
	// describe its first object as RetainerPath does.
	Path       []PathStep `json:"path"`
	RootKind   string     `json:"root_kind,omitempty"`
	RootThread string     `json:"root_thread,omitempty"`
	RootFrame  string     `json:"root_frame,omitempty"`
}

// Name names the suspect for people: its label, else its class.
func (s LeakSuspect) Name() string {
	if s.Label != "" {
		return s.Label
	}
	return s.Class
}

// LeakReport is the result of FindLeaks.
type LeakReport struct {
	Suspects []LeakSuspect
	// TotalBytes is the retained size of the virtual root, and Threshold
	// the share of it a suspect retains more than.
	TotalBytes      int64
	Threshold       float64
	KeptUnreachable bool
	// Unreachable is what no GC root reaches, of the whole dump.
	Unreachable Unreachable
	// Heaps are the Android heaps whose objects were suspected; nil when
	// every object was.
	Heaps []string
	// chains holds each suspect's path before it is labeled, nil when
	// there is none.
	chains [][]model.ObjectIndex
}

// leakCandidate is a suspect while FindLeaks works on it.
type leakCandidate struct {
	// objects is the suspect, or the class group's instances that
	// retain most (groupPathSample at most), biggest first.
	objects []model.ObjectIndex
	// members are all of a class group's instances, by index, in a
	// table of model/bigmem.
	members  []model.ObjectIndex
	group    bool
	class    string
	retained int64
	// acc is the accumulation point, NoObject when there is none.
	acc model.ObjectIndex
	// beneath are the objects whose immediately dominated objects are
	// listed by class.
	beneath []model.ObjectIndex
	chain   []model.ObjectIndex
}

// classKey groups objects by class; class objects group as
// java.lang.Class even when the dump lacks that class.
type classKey struct {
	class  model.ClassIndex
	mirror bool
}

// classKeyer gives objects their class keys. Only the instances of the
// classes of class objects (java.lang.Class) can be class objects, so
// the others are keyed without looking their ids up.
type classKeyer struct {
	h     *model.Heap
	mayBe []bool
}

func newClassKeyer(h *model.Heap) classKeyer {
	k := classKeyer{h: h, mayBe: make([]bool, len(h.Classes))}
	for c := range h.Classes {
		obj := h.Classes[c].Object
		if obj == model.NoObject || int(obj) >= h.NumObjects() {
			continue
		}
		if oc := h.ClassOf(obj); oc != model.NoClass {
			k.mayBe[oc] = true
		}
	}
	return k
}

// of is the class key of object i.
func (k classKeyer) of(i model.ObjectIndex) classKey {
	c := k.h.ClassOf(i)
	if c != model.NoClass && !k.mayBe[c] {
		return classKey{c, false}
	}
	return classKey{c, graph.IsClassObject(k.h, i)}
}

// name is the class name a key groups under.
func (k classKey) name(h *model.Heap) string {
	switch {
	case k.class != model.NoClass:
		return h.Classes[k.class].Name
	case k.mirror:
		return "java.lang.Class"
	}
	return "<unknown class>"
}

// FindLeaks finds the leak suspects of h: the objects at the top of the
// dominator tree, and the classes of such objects, that retain more than
// o.Threshold of the heap, each with its accumulation point, the biggest
// classes beneath it and a shortest path from a GC root. The paths'
// steps are labeled by Describe.
func FindLeaks(h *model.Heap, r *graph.Retention, o LeakOptions) LeakReport {
	tree := graph.RetainerOptions{Strong: o.Strong}.Tree(h)
	l, _ := leaksAlong(h, r, o, func(obj model.ObjectIndex) ([]model.ObjectIndex, error) { return tree.ChainTo(obj), nil })
	return l
}

// FindLeaksChecked is FindLeaks on a tree of strong shortest paths
// o.Strong read from an index and not checked as a whole
// (graph.PathTree.CheckIndexed): each path it follows is checked as it is
// walked (graph.PathTree.ChainOf), and the first that does not lead to a
// root is the error, wrapping store.ErrCorrupt. Leaks follow the paths
// of a few objects only, which costs far less than checking the tree.
func FindLeaksChecked(h *model.Heap, r *graph.Retention, o LeakOptions) (LeakReport, error) {
	if o.Strong == nil {
		return FindLeaks(h, r, o), nil
	}
	return leaksAlong(h, r, o, o.Strong.ChainOf)
}

// leaksAlong is FindLeaks with the paths of the strong shortest path tree
// given by chain.
func leaksAlong(h *model.Heap, r *graph.Retention, o LeakOptions, chain func(model.ObjectIndex) ([]model.ObjectIndex, error)) (LeakReport, error) {
	out := LeakReport{TotalBytes: r.ReachableBytes(), Threshold: o.Threshold, KeptUnreachable: r.KeptUnreachable, Unreachable: UnreachableOf(r),
		Suspects: []LeakSuspect{}}
	tops := r.EachTopLevel
	if !o.Heaps.All() {
		selected := r.TopLevelIn(o.Heaps)
		tops = slices.Values(selected)
		out.Heaps = o.Heaps.Names()
		out.TotalBytes = r.RetainedTotal(selected)
	}
	passes := func(b int64) bool { return float64(b) > o.Threshold*float64(out.TotalBytes) }
	keys := newClassKeyer(h)
	cands, free := leakCandidates(h, r, keys, tops, passes)
	defer free()
	if len(cands) == 0 {
		return out, nil
	}
	inApp := func(c *leakCandidate) bool { return HeapName(h, c.objects[0]) == AppHeap }
	sort.SliceStable(cands, func(a, b int) bool {
		if x, y := inApp(cands[a]), inApp(cands[b]); x != y {
			return x
		}
		if cands[a].retained != cands[b].retained {
			return cands[a].retained > cands[b].retained
		}
		return cands[a].class < cands[b].class
	})
	if err := accumulate(r, cands, o.Points, chain); err != nil {
		return LeakReport{}, err
	}
	classes := biggestClassesBeneath(keys, r, cands, o.Classes)
	for k, c := range cands {
		s := LeakSuspect{Class: c.class, Heap: HeapName(h, c.objects[0]), RetainedBytes: c.retained, Percent: out.percent(c.retained), BiggestClasses: classes[k], Path: []PathStep{}}
		if c.group {
			s.Instances = int64(len(c.members))
		} else {
			s.ObjectID, s.Label = ObjectID(h, c.objects[0]), c.class
			s.Class = objectClassName(h, c.objects[0])
		}
		if c.acc != model.NoObject {
			b := r.RetainedBytes(c.acc)
			s.AccumulationPoint = &AccumulationPoint{ObjectID: ObjectID(h, c.acc), Class: ClassName(h, c.acc), RetainedBytes: b, Percent: out.percent(b)}
		}
		for i := range s.BiggestClasses {
			s.BiggestClasses[i].Percent = out.percent(s.BiggestClasses[i].RetainedBytes)
		}
		out.Suspects = append(out.Suspects, s)
		out.chains = append(out.chains, c.chain)
	}
	return out, nil
}

// leakCandidates returns the suspects among the top-level objects tops
// yields (the same ones, in the same order, each time it is walked): the
// objects whose retained bytes pass, and the class groups of the others
// whose instances' bytes pass together, in the order their classes first
// come. A first walk counts each group's instances and bytes; only the
// groups that pass list their members, in a second walk, into tables of
// model/bigmem that free releases: on a big heap the top-level objects
// are tens of millions, and a list of them all on the Go heap would
// escape the build's memory budget.
func leakCandidates(h *model.Heap, r *graph.Retention, keys classKeyer, tops iter.Seq[model.ObjectIndex], passes func(int64) bool) (cands []*leakCandidate, free func()) {
	type tally struct {
		instances, retained int64
	}
	tallies := map[classKey]*tally{}
	var order []classKey
	for obj := range tops {
		b := r.RetainedBytes(obj)
		if passes(b) {
			cands = append(cands, &leakCandidate{objects: []model.ObjectIndex{obj}, class: ClassName(h, obj), retained: b})
			continue
		}
		k := keys.of(obj)
		t, ok := tallies[k]
		if !ok {
			t = &tally{}
			tallies[k] = t
			order = append(order, k)
		}
		t.instances++
		t.retained += b
	}
	groups := map[classKey]*leakCandidate{}
	for _, k := range order {
		if t := tallies[k]; passes(t.retained) {
			members := bigmem.Make[model.ObjectIndex](int(t.instances))
			groups[k] = &leakCandidate{group: true, class: k.name(h), retained: t.retained, members: members[:0]}
		}
	}
	free = func() {
		for _, g := range groups {
			bigmem.Free(g.members)
		}
	}
	if len(groups) == 0 {
		return cands, free
	}
	for obj := range tops {
		if passes(r.RetainedBytes(obj)) {
			continue
		}
		if g, ok := groups[keys.of(obj)]; ok {
			g.members = append(g.members, obj)
		}
	}
	for _, k := range order {
		if g, ok := groups[k]; ok {
			g.objects = biggest(r, g.members, groupPathSample)
			cands = append(cands, g)
		}
	}
	return cands, free
}

// accumulate finds each candidate's accumulation point (from known when
// it holds them), the objects beneath it and its path, which chain gives.
func accumulate(r *graph.Retention, cands []*leakCandidate, known *AccumulationPoints, chain func(model.ObjectIndex) ([]model.ObjectIndex, error)) error {
	var singles []model.ObjectIndex
	for _, c := range cands {
		if !c.group {
			singles = append(singles, c.objects[0])
		}
	}
	points, ok := known.of(r, singles)
	if !ok {
		points = accumulationPoints(r, singles)
	}
	for _, c := range cands {
		if c.group {
			c.beneath = c.members
			chains := make([][]model.ObjectIndex, 0, len(c.objects))
			for _, obj := range c.objects {
				ch, err := chain(obj)
				if err != nil {
					return err
				}
				if ch != nil {
					chains = append(chains, ch)
				}
			}
			c.acc, c.chain = groupAccumulation(r, chains)
			continue
		}
		c.acc = points[c.objects[0]]
		to := c.acc
		if to == model.NoObject {
			to = c.objects[0]
		}
		c.beneath = []model.ObjectIndex{to}
		var err error
		if c.chain, err = chain(to); err != nil {
			return err
		}
	}
	return nil
}

// percent is b as a percentage of the total.
func (l *LeakReport) percent(b int64) float64 {
	if l.TotalBytes == 0 {
		return 0
	}
	return 100 * float64(b) / float64(l.TotalBytes)
}

// accumulationPoints returns the accumulation point of each of tops,
// objects none of which dominates another (the top of the tree, or of the
// selected heaps' part of it): the walk down the dominator tree into the
// child that retains most, while that child keeps accumulationRatio of
// its parent's retained size, stops at a leaf or above the first big
// drop; NoObject when it goes deeper than accumulationDepth.
func accumulationPoints(r *graph.Retention, tops []model.ObjectIndex) map[model.ObjectIndex]model.ObjectIndex {
	ends := accumulationEnds(r, tops)
	out := make(map[model.ObjectIndex]model.ObjectIndex, len(ends))
	for top, e := range ends {
		out[top] = e.point()
	}
	return out
}

// walkEnd is where the accumulation walk from a top ends: at end, depth
// steps down.
type walkEnd struct {
	end   model.ObjectIndex
	depth int
}

// point is the accumulation point the walk gives: its end, NoObject when
// it goes deeper than accumulationDepth.
func (e walkEnd) point() model.ObjectIndex {
	if e.depth < accumulationDepth {
		return e.end
	}
	return model.NoObject
}

// accumulationEnds returns where the accumulation walk (see
// accumulationPoints) from each of tops ends.
//
// A child that keeps more than half of a positive retained size is the
// only one that does, and the biggest, so the steps of every walk form
// chains that do not meet, each ending at an object with no such child.
// One pass marks the steps and one climbs every chain from its end up to
// the first of tops on it, which the walk from that top ends at: three
// bits per object, no child lists. A walk never reaches a retained size
// of 0, since it keeps 70% of a positive one at every step.
func accumulationEnds(r *graph.Retention, tops []model.ObjectIndex) map[model.ObjectIndex]walkEnd {
	out := make(map[model.ObjectIndex]walkEnd, len(tops))
	if len(tops) == 0 {
		return out
	}
	n := len(r.ImmediateDominators())
	// The sets are a bit per object each: tables of the build's budget.
	isTop := graph.ObjectBits(bigmem.Make[uint64]((n + 63) / 64))
	defer bigmem.Free(isTop)
	for _, t := range tops {
		out[t] = walkEnd{end: t}
		isTop.Add(t)
	}
	// step marks the objects the walk goes into from their dominator,
	// goesOn those it goes on from.
	step, goesOn := graph.ObjectBits(bigmem.Make[uint64]((n+63)/64)), graph.ObjectBits(bigmem.Make[uint64]((n+63)/64))
	defer func() {
		bigmem.Free(step)
		bigmem.Free(goesOn)
	}()
	for i, d := range r.ImmediateDominators() {
		if d == graph.VirtualRoot || d == graph.NotReached {
			continue
		}
		if r.RetainsShareOf(model.ObjectIndex(i), d, accumulationRatio) {
			step.Add(model.ObjectIndex(i))
			goesOn.Add(d)
		}
	}
	for i := range n {
		end := model.ObjectIndex(i)
		if !step.Has(end) || goesOn.Has(end) {
			continue
		}
		top, depth := end, 0
		for !isTop.Has(top) && step.Has(top) {
			top = r.ImmediateDominator(top)
			depth++
		}
		if isTop.Has(top) {
			out[top] = walkEnd{end: end, depth: depth}
		}
	}
	return out
}

// groupAccumulation finds where the shortest paths of a class group's
// instances converge (see the comment at the top of this file), and the
// path to show: that of the biggest instance whose path runs along the
// whole common path. chains are the instances' paths, the biggest
// instance's first.
func groupAccumulation(r *graph.Retention, chains [][]model.ObjectIndex) (acc model.ObjectIndex, shown []model.ObjectIndex) {
	acc = model.NoObject
	if len(chains) == 0 {
		return acc, nil
	}
	// next picks, among the chains through the common path so far, the
	// object at depth d most of them run through (then the one whose
	// instances retain most, then the lowest index), with the number of
	// chains through it and their instances' retained size.
	next := func(live [][]model.ObjectIndex, d int) (obj model.ObjectIndex, n int, bytes int64) {
		type tally struct {
			n     int
			bytes int64
		}
		t := map[model.ObjectIndex]*tally{}
		for _, c := range live {
			if len(c) <= d {
				continue
			}
			e, ok := t[c[d]]
			if !ok {
				e = &tally{}
				t[c[d]] = e
			}
			e.n++
			e.bytes += r.RetainedBytes(c[len(c)-1])
		}
		obj = model.NoObject
		for x, e := range t {
			if obj == model.NoObject || e.n > n || e.n == n && (e.bytes > bytes || e.bytes == bytes && x < obj) {
				obj, n, bytes = x, e.n, e.bytes
			}
		}
		return obj, n, bytes
	}
	live := chains
	var common []model.ObjectIndex
	obj, n, bytes := next(live, 0)
	for d := 0; float64(n) > groupPathShare*float64(len(chains)); d++ {
		common = append(common, obj)
		var through [][]model.ObjectIndex
		for _, c := range live {
			if len(c) > d && c[d] == obj {
				through = append(through, c)
			}
		}
		live = through
		child, childN, childBytes := next(live, d+1)
		if child == model.NoObject || float64(childBytes) < accumulationRatio*float64(bytes) {
			acc = obj
			break
		}
		obj, n, bytes = child, childN, childBytes
	}
	for _, c := range chains {
		if len(c) >= len(common) && sameStart(c, common) {
			return acc, c
		}
	}
	return acc, chains[0]
}

// sameStart reports whether chain c starts with prefix.
func sameStart(c, prefix []model.ObjectIndex) bool {
	for k, x := range prefix {
		if c[k] != x {
			return false
		}
	}
	return true
}

// biggestClassesBeneath groups by class, per candidate, the objects its
// beneath objects immediately dominate, and keeps the top classes by
// retained size, in one pass over the dominator tree; percentages are
// left to the caller.
func biggestClassesBeneath(keys classKeyer, r *graph.Retention, cands []*leakCandidate, top int) [][]LeakClass {
	out := make([][]LeakClass, len(cands))
	if top <= 0 {
		for k := range out {
			out[k] = []LeakClass{}
		}
		return out
	}
	n := len(r.ImmediateDominators())
	// Each beneath object belongs to one candidate: a class group's
	// members by their class key, the few others (a suspect, or its
	// accumulation point) by the single map, which isSingle lets a
	// lookup skip.
	isBeneath, isSingle := graph.NewObjectBits(n), graph.NewObjectBits(n)
	groupOf := map[classKey]int{}
	single := map[model.ObjectIndex]int{}
	for k, c := range cands {
		for _, obj := range c.beneath {
			isBeneath.Add(obj)
			if c.group {
				groupOf[keys.of(obj)] = k
			} else {
				single[obj] = k
				isSingle.Add(obj)
			}
		}
	}
	owner := func(d model.ObjectIndex) int {
		if isSingle.Has(d) {
			return single[d]
		}
		return groupOf[keys.of(d)]
	}
	// Each worker adds up rows of its own; they are added together after.
	perWorker := make([][]map[classKey]*LeakClass, parallel.Workers())
	parallel.ForChunks(n, beneathChunk, func(w, lo, hi int) {
		if perWorker[w] == nil {
			perWorker[w] = make([]map[classKey]*LeakClass, len(cands))
		}
		rows := perWorker[w]
		for i, d := range r.ImmediateDominators()[lo:hi] {
			if d == graph.VirtualRoot || d == graph.NotReached || !isBeneath.Has(d) {
				continue
			}
			k := owner(d)
			if rows[k] == nil {
				rows[k] = map[classKey]*LeakClass{}
			}
			obj := model.ObjectIndex(lo + i)
			key := keys.of(obj)
			row, ok := rows[k][key]
			if !ok {
				row = &LeakClass{Class: key.name(keys.h)}
				rows[k][key] = row
			}
			row.Objects++
			row.RetainedBytes += r.RetainedBytes(obj)
		}
	})
	rows := make([]map[classKey]*LeakClass, len(cands))
	for k := range rows {
		rows[k] = map[classKey]*LeakClass{}
		for _, part := range perWorker {
			if part == nil {
				continue
			}
			for key, row := range part[k] {
				if sum, ok := rows[k][key]; ok {
					sum.Objects += row.Objects
					sum.RetainedBytes += row.RetainedBytes
				} else {
					rows[k][key] = row
				}
			}
		}
	}
	for k, m := range rows {
		list := make([]LeakClass, 0, len(m))
		for _, row := range m {
			list = append(list, *row)
		}
		// Two classes of one name (from two loaders) that tie are told
		// apart by their counts; rows equal in all three print the same.
		sort.Slice(list, func(a, b int) bool {
			if list[a].RetainedBytes != list[b].RetainedBytes {
				return list[a].RetainedBytes > list[b].RetainedBytes
			}
			if list[a].Class != list[b].Class {
				return list[a].Class < list[b].Class
			}
			return list[a].Objects > list[b].Objects
		})
		out[k] = list[:min(top, len(list))]
	}
	return out
}

// Paths lists the suspects' paths as RetainerPaths, for Sources and
// ThreadNameStrings.
func (l *LeakReport) Paths() graph.RetainerPaths {
	var p graph.RetainerPaths
	for _, c := range l.chains {
		p.Targets++
		if c == nil {
			p.Unreached++
			continue
		}
		p.Chains = append(p.Chains, c)
		p.Objects = append(p.Objects, 1)
	}
	return p
}

// PathRetainedBytes returns what each step of each suspect's Path
// retains in r, the retention FindLeaks ran on: one slice per suspect, in
// the order of Suspects and of their steps, nil for a suspect without a
// path; for the step standing for the objects a long path leaves out
// (graph.Shown), what the first of them retains. A report shows it
// beside each step, as MAT does, so that the object where the memory
// gathers stands out along the path.
func (l *LeakReport) PathRetainedBytes(r *graph.Retention) [][]int64 {
	out := make([][]int64, len(l.chains))
	for s, c := range l.chains {
		head, left, tail := graph.Shown(c)
		if len(left) > 0 {
			head = slices.Concat(head, left[:1], tail)
		}
		for _, obj := range head {
			out[s] = append(out[s], r.RetainedBytes(obj))
		}
	}
	return out
}

// Describe fills in each suspect's path and root with DescribePaths, from
// the labeled references of Paths().Sources and the decoded thread names
// (both may be nil).
func (l *LeakReport) Describe(h *model.Heap, labels map[model.ObjectIndex][]model.LabeledRef, names map[model.ObjectIndex]string) {
	described := DescribePaths(h, l.Paths(), false, labels, names).Paths
	k := 0
	for s, c := range l.chains {
		if c == nil {
			continue
		}
		rp := described[k]
		k++
		l.Suspects[s].Path = rp.Chain
		l.Suspects[s].RootKind, l.Suspects[s].RootThread, l.Suspects[s].RootFrame = rp.RootKind, rp.RootThread, rp.RootFrame
	}
}
