package session

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/oql"
	"github.com/hprofctl/hprofctl/model"
)

// The objects a question names can be missing from the dump, or outside
// the dominator tree.
var (
	ErrNoSuchObject = errors.New("no such object in the dump")
	ErrUnreachable  = errors.New("it is unreachable: it is in no dominator tree")
)

// Info sums up the file: format, counts, GC roots, anomalies, and the
// native sizes an Android dump shows. A file with profiling data only is
// summed up too.
func (s *Session) Info() (heap.Info, error) {
	h, err := s.Heap()
	if err != nil {
		return heap.Info{}, err
	}
	native, err := s.nativeSizes(h)
	if err != nil {
		return heap.Info{}, err
	}
	in := heap.Summarize(h, s.o.Size)
	in.AddNative(h, native)
	in.JVM, err = s.JVM()
	return in, err
}

// Totals are the dominator tree's totals: what is reachable and what is
// not.
func (s *Session) Totals() (heap.DominatorReport, error) {
	r, err := s.Retention()
	if err != nil {
		return heap.DominatorReport{}, err
	}
	return heap.TreeTotals(r), nil
}

// Histogram counts the objects by class as o asks; the session gives the
// size mode, the heaps and the native sizes. The objects are read only
// when o divides the classes among heaps or the dump may show native
// sizes.
func (s *Session) Histogram(o heap.HistoOptions) (heap.Histo, error) {
	if h := s.countedHeap(o); h != nil {
		o.Size = s.o.Size
		return heap.Histogram(h, o)
	}
	h, err := s.dumpHeap(o.ByHeap)
	if err != nil {
		return heap.Histo{}, err
	}
	if !h.HasObjects && heap.MayHaveNative(h) {
		if h, err = s.dumpHeap(true); err != nil {
			return heap.Histo{}, err
		}
	}
	if o.Native, err = s.nativeSizes(h); err != nil {
		return heap.Histo{}, err
	}
	if err := checkHistogramSort(o.Sort, o.Native != nil); err != nil {
		return heap.Histo{}, err
	}
	if o.Heaps, err = h.SelectHeaps(s.o.Heaps); err != nil {
		return heap.Histo{}, err
	}
	o.Size = s.o.Size
	return heap.Histogram(h, o)
}

// countedHeap is the heap of a HotSpot dump in segments, counted on every
// core (model.CountClasses), for a histogram that needs neither the
// objects nor an index: nil when the session reads the dump otherwise (a
// heap already read, a fresh index, --heap, --by-heap, another dump of
// the file, standard input, a compressed or other file, native sizes
// that may show), and when the counting fails: Load then reads the dump,
// and says what is wrong with it. The heap is not kept: it lacks what
// Load finds in the objects beyond their counts (the reader's warnings).
func (s *Session) countedHeap(o heap.HistoOptions) *model.Heap {
	if o.ByHeap || len(s.o.Heaps) > 0 || s.o.Dump != -1 || s.o.Bare != nil || s.stdin() || !s.binary() {
		return nil
	}
	s.mu.Lock()
	loaded := s.heap != nil || s.classesIndex() != nil
	s.mu.Unlock()
	if loaded {
		return nil
	}
	h, err := model.CountClasses(s.path, runtime.GOMAXPROCS(0))
	if err != nil || heap.MayHaveNative(h) {
		return nil
	}
	h.Deobfuscate(s.o.Mapping)
	return h
}

// retained is the heap with its objects and dominator tree.
func (s *Session) retained() (*model.Heap, *graph.Retention, error) {
	h, err := s.dumpHeap(true)
	if err != nil {
		return nil, nil, err
	}
	r, err := s.Retention()
	return h, r, err
}

// dominatorOptions completes o with what the session gives: size mode,
// heaps and native sizes.
func (s *Session) dominatorOptions(h *model.Heap, o heap.DominatorOptions) (heap.DominatorOptions, error) {
	var err error
	if o.Native, err = s.nativeSizes(h); err != nil {
		return o, err
	}
	o.Heaps, err = h.SelectHeaps(s.o.Heaps)
	o.Size = s.o.Size
	return o, err
}

// Dominators lists the objects that retain most, as o asks.
func (s *Session) Dominators(o heap.DominatorOptions) (heap.DominatorReport, error) {
	if d, ok := s.keptDominators(o); ok {
		return d, nil
	}
	h, r, err := s.retained()
	if err != nil {
		return heap.DominatorReport{}, err
	}
	if o, err = s.dominatorOptions(h, o); err != nil {
		return heap.DominatorReport{}, err
	}
	return heap.Dominators(h, r, o), nil
}

// Dominated is one object of the dominator tree with what it immediately
// dominates and the chain of its dominators.
type Dominated struct {
	// Report lists what the object immediately dominates.
	Report heap.DominatorReport
	// Object is the object's own row.
	Object heap.DominatorRow
	// Chain are its dominators, the top of the tree first.
	Chain []heap.DominatedObject
}

// DominatedBy describes obj in the dominator tree, as o asks; the error
// wraps ErrUnreachable when obj is in no dominator tree.
func (s *Session) DominatedBy(obj model.ObjectIndex, o heap.DominatorOptions) (Dominated, error) {
	h, r, err := s.retained()
	if err != nil {
		return Dominated{}, err
	}
	if !r.Reachable(obj) {
		return Dominated{}, fmt.Errorf("object %s: %w", heap.ObjectID(h, obj), ErrUnreachable)
	}
	if o, err = s.dominatorOptions(h, o); err != nil {
		return Dominated{}, err
	}
	d := Dominated{Report: heap.DominatedBy(h, r, obj, o), Object: heap.DominatorRowOf(h, r, obj, o)}
	for up := r.ImmediateDominator(obj); up != model.NoObject; up = r.ImmediateDominator(up) {
		d.Chain = append(d.Chain, heap.DominatedObject{ObjectID: heap.ObjectID(h, up), Class: heap.ClassName(h, up), RetainedBytes: r.RetainedBytes(up)})
	}
	slices.Reverse(d.Chain)
	return d, nil
}

// DominatedByEach lists what each of objs immediately dominates, as o
// asks (heap.DominatedByEach); the error wraps ErrUnreachable when one of
// them is in no dominator tree.
func (s *Session) DominatedByEach(objs []model.ObjectIndex, o heap.DominatorOptions) ([]heap.DominatorReport, error) {
	h, r, err := s.retained()
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		if !r.Reachable(obj) {
			return nil, fmt.Errorf("object %s: %w", heap.ObjectID(h, obj), ErrUnreachable)
		}
	}
	if o, err = s.dominatorOptions(h, o); err != nil {
		return nil, err
	}
	return heap.DominatedByEach(h, r, objs, o), nil
}

// RetainedTree is the top of the dominator tree below root
// (model.NoObject: the virtual root) as heap.RetainedTree draws it, in the
// session's heaps; the error wraps ErrUnreachable when root is in no
// dominator tree.
func (s *Session) RetainedTree(root model.ObjectIndex, depth int, least int64) (*heap.RetainedNode, error) {
	h, r, err := s.retained()
	if err != nil {
		return nil, err
	}
	if root != model.NoObject && !r.Reachable(root) {
		return nil, fmt.Errorf("object %s: %w", heap.ObjectID(h, root), ErrUnreachable)
	}
	heaps, err := h.SelectHeaps(s.o.Heaps)
	if err != nil {
		return nil, err
	}
	return heap.RetainedTree(h, r, root, depth, least, heaps), nil
}

// TopConsumers groups the objects at the top of the dominator tree as o
// asks.
func (s *Session) TopConsumers(o heap.TopOptions) (heap.TopConsumerReport, error) {
	if err := o.Check(); err != nil {
		return heap.TopConsumerReport{}, err
	}
	h, r, err := s.retained()
	if err != nil {
		return heap.TopConsumerReport{}, err
	}
	if o.Heaps, err = h.SelectHeaps(s.o.Heaps); err != nil {
		return heap.TopConsumerReport{}, err
	}
	return heap.TopConsumers(h, r, o)
}

// Lookup finds the object of an id; the error wraps ErrNoSuchObject when
// the dump has none.
func (s *Session) Lookup(id uint64) (model.ObjectIndex, error) {
	h, err := s.dumpHeap(true)
	if err != nil {
		return model.NoObject, err
	}
	i, ok := h.Lookup(id)
	if !ok {
		return model.NoObject, ErrNoSuchObject
	}
	return i, nil
}

// Retainers finds the shortest paths from GC roots to the targets o names
// and describes their steps.
func (s *Session) Retainers(o graph.RetainerOptions) (heap.Retainers, error) {
	if r, ok := s.keptRetainers(o); ok {
		return r, nil
	}
	h, err := s.dumpHeap(true)
	if err != nil {
		return heap.Retainers{}, err
	}
	if o.Heaps, err = h.SelectHeaps(s.o.Heaps); err != nil {
		return heap.Retainers{}, err
	}
	p, ok := s.classPathsFromIndex(h, o)
	if !ok {
		if !o.IncludeWeak {
			if o.Strong, err = s.StrongPaths(); err != nil {
				return heap.Retainers{}, err
			}
			if x := s.indexOf(); x != nil && o.Class != nil {
				o.Chains = x.classChains(s.noteln)
			}
		}
		p = graph.ShortestPaths(h, o)
	}
	labels, names, err := pathLabels(h, p)
	if err != nil {
		return heap.Retainers{}, err
	}
	return heap.DescribePaths(h, p, o.Class != nil, labels, names), nil
}

// classPathsFromIndex answers a class target from the class chains the
// index keeps, following the index's shortest path tree along the few
// chains it shows only (graph.ClassPathsChecked), not checking the whole
// tree as StrongPaths does. ok is false when the index cannot answer, or
// a chain it follows does not lead to a root: then StrongPaths checks
// the tree, and computes it again with a warning when it is damaged.
func (s *Session) classPathsFromIndex(h *model.Heap, o graph.RetainerOptions) (p graph.RetainerPaths, ok bool) {
	x := s.indexOf()
	if x == nil || x.paths == nil || o.Class == nil || o.IncludeWeak {
		return graph.RetainerPaths{}, false
	}
	o.Strong, o.Chains = x.paths, x.classChains(s.noteln)
	p, ok, err := graph.ClassPathsChecked(h, o)
	return p, ok && err == nil
}

// pathLabels reads the dump again for what describing paths needs: the
// labeled references of their objects and the names of their root
// threads.
func pathLabels(h *model.Heap, p graph.RetainerPaths) (map[model.ObjectIndex][]model.LabeledRef, map[model.ObjectIndex]string, error) {
	return labelsOf(h, p, p.Sources(h))
}

// labelsOf is pathLabels reading the labeled references of sources
// alone, some of p's objects.
func labelsOf(h *model.Heap, p graph.RetainerPaths, sources []model.ObjectIndex) (map[model.ObjectIndex][]model.LabeledRef, map[model.ObjectIndex]string, error) {
	labels, err := model.ReadLabelsTo(h, sources, p.Steps())
	if err != nil {
		return nil, nil, err
	}
	var names map[model.ObjectIndex]string
	if strs := p.ThreadNameStrings(h, labels); len(strs) > 0 {
		if names, err = model.ReadNames(h, strs); err != nil {
			return nil, nil, err
		}
	}
	return labels, names, nil
}

// Show describes each of objs as o asks: sizes, roots, field values,
// elements, referrers and a path from a GC root.
func (s *Session) Show(objs []model.ObjectIndex, o heap.ShowOptions) ([]heap.ShowObject, error) {
	if err := checkCount("elements", o.Elements, 0); err != nil {
		return nil, err
	}
	if err := checkCount("max-referrers", o.MaxReferrers, 0); err != nil {
		return nil, err
	}
	h, r, err := s.retained()
	if err != nil {
		return nil, err
	}
	o.Size = s.o.Size
	if o.Heaps, err = h.SelectHeaps(s.o.Heaps); err != nil {
		return nil, err
	}
	d, err := s.showData(h, objs, o)
	if err != nil {
		return nil, err
	}
	return heap.Show(h, r, objs, d, o), nil
}

// showData reads what Show needs beyond the heap: the values of the
// objects and of what they reference in one batch, the labeled references
// of their referrers in another, and the paths. Standard input cannot be
// read twice: then values and labels are missing.
func (s *Session) showData(h *model.Heap, objs []model.ObjectIndex, o heap.ShowOptions) (heap.ShowData, error) {
	var d heap.ShowData
	if o.Referrers {
		d.Referrers, d.ReferrerTotals = heap.Referrers(h, objs, o.MaxReferrers, o.Heaps)
	}
	if o.Path {
		strong, err := s.StrongPaths()
		if err != nil {
			return d, err
		}
		p, err := strong.Paths(objs)
		if err != nil {
			return d, err
		}
		labels, names, err := pathLabels(h, p)
		if err != nil {
			return d, err
		}
		d.Paths = heap.PathsByTarget(p, heap.DescribePaths(h, p, false, labels, names))
	}
	var err error
	if d.Native, err = s.nativeSizes(h); err != nil {
		return d, err
	}
	if d.Values, err = model.ReadValues(h, heap.ShowReads(h, objs, o), model.ValueOptions{Elements: heap.ShowReadElements(o)}); err != nil {
		return d, err
	}
	if o.Referrers {
		d.Labels, err = model.ReadLabels(h, heap.AllReferrers(d.Referrers, objs))
	}
	return d, err
}

// valueHeap is the heap of a question that reads values again: not from
// a dump that records references only.
func (s *Session) valueHeap(question string) (*model.Heap, error) {
	h, err := s.dumpHeap(true)
	if err != nil {
		return nil, err
	}
	if h.Source.Lines > 0 {
		return nil, fmt.Errorf("%s: the dump records no primitive values (references only), so String values and collection sizes cannot be read", h.Source.File)
	}
	return h, nil
}

// DuplicateStrings groups the Strings by value as o asks.
func (s *Session) DuplicateStrings(o heap.StringOptions) (heap.DuplicateStringReport, error) {
	if err := checkCount("min-count", o.MinCount, 2); err != nil {
		return heap.DuplicateStringReport{}, err
	}
	if err := checkCount("top", o.Top, 0); err != nil {
		return heap.DuplicateStringReport{}, err
	}
	h, err := s.valueHeap("strings")
	if err != nil {
		return heap.DuplicateStringReport{}, err
	}
	o.Size = s.o.Size
	if o.Heaps, err = h.SelectHeaps(s.o.Heaps); err != nil {
		return heap.DuplicateStringReport{}, err
	}
	if x := s.indexOf(); x != nil && x.strings != nil && o.Heaps.All() {
		return x.strings.Report(h, o)
	}
	return heap.DuplicateStrings(h, o)
}

// Collections measures the collections and wasteful arrays as o asks.
func (s *Session) Collections(o heap.CollectionOptions) (heap.CollectionReport, error) {
	if err := checkCount("top", o.Top, 0); err != nil {
		return heap.CollectionReport{}, err
	}
	h, err := s.valueHeap("collections")
	if err != nil {
		return heap.CollectionReport{}, err
	}
	o.Size = s.o.Size
	if o.Heaps, err = h.SelectHeaps(s.o.Heaps); err != nil {
		return heap.CollectionReport{}, err
	}
	if x := s.indexOf(); x != nil {
		o.Sums = x.collectionSums(s.noteln)
	}
	return heap.Collections(h, o)
}

// Query answers an OQL query as o asks (at most o.Limit rows, within
// its context and memory bound, handed to o.Row as found), with the
// session's sizes and heaps; the rows of SELECT * and SELECT OBJECTS
// describe each object by class, shallow and retained size.
func (s *Session) Query(q *oql.Query, o oql.Options) (*oql.Result, error) {
	if err := checkCount("limit", o.Limit, 0); err != nil {
		return nil, err
	}
	h, r, err := s.retained()
	if err != nil {
		return nil, err
	}
	heaps, err := h.SelectHeaps(s.o.Heaps)
	if err != nil {
		return nil, err
	}
	o.Size, o.Heaps, o.Describe = s.o.Size, heaps, true
	return oql.Run(h, r, q, o)
}
