package heap

import (
	"cmp"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"sort"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// DominatorOptions select the rows of a dominator report.
type DominatorOptions struct {
	// Top keeps the Top rows that retain most; 0 keeps all.
	Top int
	// Offset skips the Offset rows that retain most before Top counts
	// (a page further down the list); the report's Selected still counts
	// them all.
	Offset int
	// Class, when set, selects every reachable instance of the matching
	// classes instead of the objects the virtual root immediately
	// dominates.
	Class *regexp.Regexp
	// Children lists, for each row, up to Children of the objects it
	// immediately dominates, biggest first.
	Children int
	// ByClass aggregates the selected objects per class (MAT's "group by
	// class"); a class's retained bytes are those of the union of its
	// selected objects' retained sets, so an object dominated by another
	// selected object of its class adds nothing more.
	ByClass bool
	// Size chooses the shallow sizes (as the Retention was built).
	Size model.SizeMode
	// Native, when it holds any, adds the registered native sizes each
	// row retains (RetainedNative).
	Native *NativeSizes
	// Heaps selects the Android heaps whose objects are listed; the top
	// of the tree is then the selected objects no other selected object
	// dominates. Retained sizes stay those of the whole graph.
	Heaps model.HeapSelection
}

// DominatedObject is one object a dominator row immediately dominates.
type DominatedObject struct {
	ObjectID      string `json:"object_id"`
	Class         string `json:"class"`
	RetainedBytes int64  `json:"retained_bytes"`
	// RetainedNativeBytes sums the native sizes registered to the
	// objects it dominates.
	RetainedNativeBytes int64 `json:"retained_native_bytes,omitempty"`
}

// DominatorRow is one object of a dominator report.
type DominatorRow struct {
	ObjectID           string            `json:"object_id"`
	Class              string            `json:"class"`
	Heap               string            `json:"heap,omitempty"`
	ShallowBytes       int64             `json:"shallow_bytes"`
	RetainedBytes      int64             `json:"retained_bytes"`
	RetainedObjects    int64             `json:"retained_objects"`
	ImmediateDominator string            `json:"immediate_dominator"`
	Dominated          []DominatedObject `json:"dominated"`
	// DominatedCount counts every object it immediately dominates, of
	// which Dominated lists the biggest.
	DominatedCount int `json:"dominated_count"`

	// RetainedNativeBytes sums the native sizes registered to the
	// objects it dominates.
	RetainedNativeBytes int64 `json:"retained_native_bytes,omitempty"`
}

// DominatorClassRow aggregates the selected objects of one class.
type DominatorClassRow struct {
	Class         string `json:"class"`
	Objects       int64  `json:"objects"`
	ShallowBytes  int64  `json:"shallow_bytes"`
	RetainedBytes int64  `json:"retained_bytes"`
	// RetainedNativeBytes sums the native sizes the class's selected
	// objects retain, counted once as RetainedBytes is.
	RetainedNativeBytes int64 `json:"retained_native_bytes,omitempty"`
}

// DominatorReport is the result of Dominators.
type DominatorReport struct {
	Rows []DominatorRow
	// Classes is the per-class aggregate, non-nil exactly with ByClass.
	Classes []DominatorClassRow
	// Selected counts the objects selected before Top cut the list.
	Selected int
	// Totals of the tree, and what it leaves out.
	ReachableObjects, ReachableBytes     int64
	UnreachableObjects, UnreachableBytes int64
	KeptUnreachable                      bool
	// Native reports whether the dump shows native sizes,
	// ReachableNativeBytes what of them the tree holds.
	Native               bool
	ReachableNativeBytes int64
}

// ReachablePercent is what retained bytes are of the reachable heap, in
// percent; 0 when it is empty.
func (d DominatorReport) ReachablePercent(retained int64) float64 {
	if d.ReachableBytes <= 0 {
		return 0
	}
	return 100 * float64(retained) / float64(d.ReachableBytes)
}

// RootID is how reports name the virtual root above the GC roots.
const RootID = "root"

// ObjectID formats an object's id as reports show it: "0x" and hex.
func ObjectID(h *model.Heap, i model.ObjectIndex) string {
	if i == model.NoObject {
		return RootID
	}
	return fmt.Sprintf("0x%x", h.ObjectID(i))
}

// HeapName is the Android heap object i lies in: model.NoHeap for an
// object that no heap switch precedes, "" for a dump without heaps.
func HeapName(h *model.Heap, i model.ObjectIndex) string {
	k := h.HeapNumber(i)
	switch {
	case k < 0:
		return ""
	case k < len(h.HeapNames()):
		return h.HeapNames()[k]
	}
	return model.NoHeap
}

// objectClassName is the name of object i's class, java.lang.Class for a
// class object (where ClassName names the class it is the object of).
func objectClassName(h *model.Heap, i model.ObjectIndex) string {
	if c := h.ClassOf(i); c != model.NoClass {
		return h.Classes[c].Name
	}
	return "<unknown class>"
}

// ClassName is the name of object i's class; for a class object, the
// class it is the object of, as "class NAME".
func ClassName(h *model.Heap, i model.ObjectIndex) string {
	if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i {
		return "class " + h.Classes[c].Name
	}
	if c := h.ClassOf(i); c != model.NoClass {
		return h.Classes[c].Name
	}
	return "<unknown class>"
}

// Dominators lists the objects that retain most: by default the objects
// the virtual root immediately dominates (the top of the dominator tree,
// whose retained sizes add up to the reachable heap), or with Class every
// reachable instance of the matching classes.
func Dominators(h *model.Heap, r *graph.Retention, o DominatorOptions) DominatorReport {
	out := TreeTotals(r)
	if o.Class == nil && o.Heaps.All() && !o.ByClass && o.Top > 0 {
		return topOfTree(h, r, o, out)
	}
	var selected []model.ObjectIndex
	if o.Class == nil {
		selected = r.TopLevelIn(o.Heaps)
	} else {
		match := graph.MatchingClasses(h, o.Class)
		for i := range h.NumObjects() {
			obj := model.ObjectIndex(i)
			if c := h.ClassOf(obj); c != model.NoClass && match[c] && r.Reachable(obj) && !graph.IsClassObject(h, obj) && o.Heaps.Has(obj) {
				selected = append(selected, obj)
			}
		}
	}
	out.Selected = len(selected)
	retained := out.addNative(r, o.Native)
	if o.ByClass {
		out.Classes = byClass(h, r, selected, o, retained)
		return out
	}
	out.Rows = dominatorRows(h, r, page(r, selected, o), o, retained)
	return out
}

// topOfTree is Dominators' report out of a page of the top of the tree
// in every heap: the top-level objects are walked twice, to count them
// and to pick the page, rather than listed, which on a big heap would
// take tens of millions of entries.
func topOfTree(h *model.Heap, r *graph.Retention, o DominatorOptions, out DominatorReport) DominatorReport {
	for range r.EachTopLevel {
		out.Selected++
	}
	retained := out.addNative(r, o.Native)
	var rows []model.ObjectIndex
	if off := max(o.Offset, 0); off < out.Selected {
		rows = biggestOf(r, r.EachTopLevel, min(off+o.Top, out.Selected))[off:]
	}
	out.Rows = dominatorRows(h, r, rows, o, retained)
	return out
}

// page returns the selected objects of the page o asks: those that retain
// most after the first o.Offset, at most o.Top of them (0: all).
func page(r *graph.Retention, selected []model.ObjectIndex, o DominatorOptions) []model.ObjectIndex {
	off := max(o.Offset, 0)
	if off >= len(selected) {
		return nil
	}
	top := 0
	if o.Top > 0 {
		top = off + o.Top
	}
	return biggest(r, selected, top)[off:]
}

// addNative notes in the report whether there are native sizes and what
// of them the tree holds, and returns what each object retains of them.
func (d *DominatorReport) addNative(r *graph.Retention, n *NativeSizes) map[model.ObjectIndex]int64 {
	if !n.Any() {
		return nil
	}
	d.Native = true
	for k, o := range n.Owners {
		if r.Reachable(o) {
			d.ReachableNativeBytes = addBytes(d.ReachableNativeBytes, n.Bytes[k])
		}
	}
	return RetainedNative(r, n)
}

// TreeTotals is a DominatorReport of no row: the totals of the tree r
// and what it leaves out.
func TreeTotals(r *graph.Retention) DominatorReport {
	return DominatorReport{
		ReachableObjects: r.ReachableObjects(), ReachableBytes: r.ReachableBytes(),
		UnreachableObjects: r.Unreachable, UnreachableBytes: r.UnreachableBytes,
		KeptUnreachable: r.KeptUnreachable,
	}
}

// DominatedBy lists, as Dominators lists the top of the tree, the objects
// the reachable object parent immediately dominates: the o.Top of them
// that retain most (0: all), each with its own biggest o.Children. The
// tree's totals are the whole tree's; o.Class and o.ByClass do not apply.
func DominatedBy(h *model.Heap, r *graph.Retention, parent model.ObjectIndex, o DominatorOptions) DominatorReport {
	out := TreeTotals(r)
	selected := r.Dominated([]model.ObjectIndex{parent})[parent]
	out.Selected = len(selected)
	out.Rows = dominatorRows(h, r, page(r, selected, o), o, out.addNative(r, o.Native))
	return out
}

// DominatedByEach is DominatedBy for each of the reachable objects
// parents, in their order, in two passes over the tree whatever their
// number: the page of each lists the o.Top (after o.Offset) of what it
// immediately dominates that retain most.
func DominatedByEach(h *model.Heap, r *graph.Retention, parents []model.ObjectIndex, o DominatorOptions) []DominatorReport {
	totals := TreeTotals(r)
	retained := totals.addNative(r, o.Native)
	children := r.Dominated(parents)
	var all []model.ObjectIndex
	cut := make([]int, len(parents)+1)
	for k, p := range parents {
		all = append(all, page(r, children[p], o)...)
		cut[k+1] = len(all)
	}
	rows := dominatorRows(h, r, all, o, retained)
	out := make([]DominatorReport, len(parents))
	for k, p := range parents {
		out[k] = totals
		out[k].Selected = len(children[p])
		out[k].Rows = rows[cut[k]:cut[k+1]]
	}
	return out
}

// DominatorRowOf describes the reachable object obj as a row of
// Dominators, with its biggest o.Children.
func DominatorRowOf(h *model.Heap, r *graph.Retention, obj model.ObjectIndex, o DominatorOptions) DominatorRow {
	var d DominatorReport
	return dominatorRows(h, r, []model.ObjectIndex{obj}, o, d.addNative(r, o.Native))[0]
}

// dominatorRows describes the selected objects, in their order, each with
// the biggest o.Children of the objects it immediately dominates, and
// what they retain of the native sizes (retainedNative, nil for none).
func dominatorRows(h *model.Heap, r *graph.Retention, selected []model.ObjectIndex, o DominatorOptions, retainedNative map[model.ObjectIndex]int64) []DominatorRow {
	var rows []DominatorRow
	children := r.Dominated(selected)
	for _, obj := range selected {
		row := DominatorRow{
			ObjectID:           ObjectID(h, obj),
			Class:              ClassName(h, obj),
			Heap:               HeapName(h, obj),
			ShallowBytes:       graph.ShallowBytes(h, obj, o.Size),
			RetainedBytes:      r.RetainedBytes(obj),
			RetainedObjects:    r.RetainedObjects(obj),
			ImmediateDominator: ObjectID(h, r.ImmediateDominator(obj)),
			Dominated:          []DominatedObject{},
		}
		row.RetainedNativeBytes = retainedNative[obj]
		kids := children[obj]
		row.DominatedCount = len(kids)
		if o.Children == 0 {
			kids = nil
		}
		for _, k := range biggest(r, kids, max(o.Children, 0)) {
			row.Dominated = append(row.Dominated, DominatedObject{ObjectID: ObjectID(h, k), Class: ClassName(h, k), RetainedBytes: r.RetainedBytes(k), RetainedNativeBytes: retainedNative[k]})
		}
		rows = append(rows, row)
	}
	return rows
}

// retainedObject is an object with its retained size, for sorting.
type retainedObject struct {
	bytes int64
	obj   model.ObjectIndex
}

// bigger orders by retained size, biggest first, then by index.
func bigger(a, b retainedObject) bool {
	if a.bytes != b.bytes {
		return a.bytes > b.bytes
	}
	return a.obj < b.obj
}

// biggest returns the top objects (all when top is 0) that retain most,
// biggest first.
func biggest(r *graph.Retention, objs []model.ObjectIndex, top int) []model.ObjectIndex {
	if top > 0 && top < len(objs) {
		return biggestOf(r, slices.Values(objs), top)
	}
	all := make([]retainedObject, len(objs))
	for k, obj := range objs {
		all[k] = retainedObject{r.RetainedBytes(obj), obj}
	}
	return byRetained(all)
}

// biggestOf returns the top objects of objs (top > 0) that retain most,
// biggest first. It keeps a heap of top entries, so picking a few of
// millions costs one pass, and the objects need no list: the answer is
// the same in whatever order they come.
func biggestOf(r *graph.Retention, objs iter.Seq[model.ObjectIndex], top int) []model.ObjectIndex {
	// best is a min-heap (by bigger) of the top entries seen so far.
	best := make([]retainedObject, 0, min(top, 1<<16))
	for obj := range objs {
		e := retainedObject{r.RetainedBytes(obj), obj}
		if len(best) < top {
			best = append(best, e)
			for k := len(best) - 1; k > 0 && bigger(best[(k-1)/2], best[k]); k = (k - 1) / 2 {
				best[k], best[(k-1)/2] = best[(k-1)/2], best[k]
			}
			continue
		}
		if !bigger(e, best[0]) {
			continue
		}
		best[0] = e
		for k := 0; ; {
			least := k
			for _, c := range []int{2*k + 1, 2*k + 2} {
				if c < len(best) && bigger(best[least], best[c]) {
					least = c
				}
			}
			if least == k {
				break
			}
			best[k], best[least] = best[least], best[k]
			k = least
		}
	}
	return byRetained(best)
}

// byRetained sorts entries biggest first and returns their objects.
func byRetained(entries []retainedObject) []model.ObjectIndex {
	slices.SortFunc(entries, func(a, b retainedObject) int {
		return cmp.Or(cmp.Compare(b.bytes, a.bytes), cmp.Compare(a.obj, b.obj))
	})
	out := make([]model.ObjectIndex, len(entries))
	for k, e := range entries {
		out[k] = e.obj
	}
	return out
}

// byClass sums the selected objects per class, biggest retained first.
func byClass(h *model.Heap, r *graph.Retention, objs []model.ObjectIndex, o DominatorOptions, retainedNative map[model.ObjectIndex]int64) []DominatorClassRow {
	nested := nestedInSameClass(h, r, objs)
	index := map[string]int{}
	rows := []DominatorClassRow{}
	for _, obj := range objs {
		name := ClassName(h, obj)
		k, ok := index[name]
		if !ok {
			k = len(rows)
			index[name] = k
			rows = append(rows, DominatorClassRow{Class: name})
		}
		rows[k].Objects++
		rows[k].ShallowBytes += graph.ShallowBytes(h, obj, o.Size)
		if !nested.has(obj) {
			rows[k].RetainedBytes += r.RetainedBytes(obj)
			rows[k].RetainedNativeBytes = addBytes(rows[k].RetainedNativeBytes, retainedNative[obj])
		}
	}
	sort.SliceStable(rows, func(a, b int) bool {
		if rows[a].RetainedBytes != rows[b].RetainedBytes {
			return rows[a].RetainedBytes > rows[b].RetainedBytes
		}
		return rows[a].Class < rows[b].Class
	})
	if o.Top > 0 && len(rows) > o.Top {
		rows = rows[:o.Top]
	}
	return rows
}

// objectSet is a set of objects.
type objectSet map[model.ObjectIndex]bool

func (s objectSet) has(i model.ObjectIndex) bool { return s[i] }
func (s objectSet) add(i model.ObjectIndex)      { s[i] = true }

// objectMarks is a set of objects that nestedInSameClass marks: a map
// for a class of few objects, a bit per object of the heap for a class
// of many, where a map would cost more than the bits.
type objectMarks interface {
	has(model.ObjectIndex) bool
	add(model.ObjectIndex)
}

// bitMarks is an objectMarks of a bit per object.
type bitMarks graph.ObjectBits

func (b bitMarks) has(i model.ObjectIndex) bool { return graph.ObjectBits(b).Has(i) }
func (b bitMarks) add(i model.ObjectIndex)      { graph.ObjectBits(b).Add(i) }

// manyObjects is the size of a class from which nestedInSameClass marks
// objects in bits rather than in maps.
const manyObjects = 4096

// nestedInSameClass returns the objects of objs that another object of
// objs with the same class dominates. Each class's walk up the dominator
// tree stops at the first node it has seen before, so every node is
// visited at most once per class.
func nestedInSameClass(h *model.Heap, r *graph.Retention, objs []model.ObjectIndex) objectSet {
	byName := map[string][]model.ObjectIndex{}
	for _, obj := range objs {
		name := ClassName(h, obj)
		byName[name] = append(byName[name], obj)
	}
	nested := objectSet{}
	for _, group := range byName {
		if len(group) < 2 {
			continue
		}
		marks := func() objectMarks {
			if len(group) >= manyObjects {
				return bitMarks(graph.NewObjectBits(h.NumObjects()))
			}
			return objectSet{}
		}
		// seen holds the nodes whose answer is known, below those of
		// them that a selected object strictly dominates.
		selected, seen, below := marks(), marks(), marks()
		for _, obj := range group {
			selected.add(obj)
		}
		var path []model.ObjectIndex
		for _, obj := range group {
			path = path[:0]
			inside := false
			for x := r.ImmediateDominator(obj); x != model.NoObject; x = r.ImmediateDominator(x) {
				if seen.has(x) {
					inside = below.has(x) || selected.has(x)
					break
				}
				if selected.has(x) {
					inside = true
					break
				}
				path = append(path, x)
			}
			for i := len(path) - 1; i >= 0; i-- {
				seen.add(path[i])
				if inside {
					below.add(path[i])
				}
				inside = inside || selected.has(path[i])
			}
			if inside {
				nested[obj] = true
			}
		}
	}
	return nested
}
