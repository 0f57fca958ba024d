package session

import (
	"errors"
	"slices"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
)

// A fresh index answers the questions asked most from a few sections
// whose size does not grow with the number of objects: the histogram
// from the classes (model.ReadIndexClasses); the top of the dominator
// tree, the leak suspects at the default threshold and the retainers of
// classes from the answers the build worked out (heap.KeptDominators,
// heap.KeptLeaks, heap.KeptRetainers). A question these do not answer
// (other options, --heap, --mapping, other sizes) reads the whole index
// as before.

// keptLeakThreshold is the threshold the index keeps the leak suspects
// at: that of `hprofctl leaks` without --threshold (10%).
const keptLeakThreshold = 10.0 / 100

// keptAnswers are the answers an index keeps worked out, read from it on
// first use; for an index just built, as they were worked out.
type keptAnswers struct {
	// ix is the index they are read from (nil for an index just
	// built, whose answers are set); objects is the number of objects
	// of its heap.
	ix      *store.Index
	objects int

	topOnce sync.Once
	top     *heap.KeptDominators

	leaksOnce sync.Once
	leaks     *heap.KeptLeaks

	retainersOnce sync.Once
	retainers     *heap.KeptRetainers
}

// builtAnswers are the answers worked out for an index being built.
func builtAnswers(top *heap.KeptDominators, leaks *heap.KeptLeaks, retainers *heap.KeptRetainers) *keptAnswers {
	a := &keptAnswers{top: top, leaks: leaks, retainers: retainers}
	a.topOnce.Do(func() {})
	a.leaksOnce.Do(func() {})
	a.retainersOnce.Do(func() {})
	return a
}

// dominators returns the kept top of the dominator tree; nil when the
// index keeps none or it does not check (said through note: the question
// then reads the tree).
func (a *keptAnswers) dominators(note func(string, ...any)) *heap.KeptDominators {
	a.topOnce.Do(func() {
		totals, err := graph.ReadTotals(a.ix, a.objects)
		if err == nil {
			a.top, err = heap.ReadKeptDominators(a.ix, totals)
		}
		if err != nil {
			note("warning: the index's kept dominators are not used, they are computed again: %s: %v", a.ix.Path(), err)
		}
	})
	return a.top
}

// leakSuspects returns the kept leak suspects; nil when the index keeps
// none or they do not check (said through note: the question then finds
// them).
func (a *keptAnswers) leakSuspects(note func(string, ...any)) *heap.KeptLeaks {
	a.leaksOnce.Do(func() {
		totals, err := graph.ReadTotals(a.ix, a.objects)
		if err == nil {
			a.leaks, err = heap.ReadKeptLeaks(a.ix, totals)
		}
		if err != nil {
			note("warning: the index's kept leak suspects are not used, they are found again: %s: %v", a.ix.Path(), err)
		}
	})
	return a.leaks
}

// retainerPaths returns the kept paths of `retainers --class`, checked
// against the classes of h, the index's heap; nil when the index keeps
// none or they do not check (said through note: the question then reads
// the tree).
func (a *keptAnswers) retainerPaths(h *model.Heap, note func(string, ...any)) *heap.KeptRetainers {
	a.retainersOnce.Do(func() {
		var err error
		if a.retainers, err = heap.ReadKeptRetainers(a.ix, h); err != nil {
			note("warning: the index's kept retainers are not used, they are computed again: %s: %v", a.ix.Path(), err)
		}
	})
	return a.retainers
}

// write writes the answers a holds into the index w.
func (a *keptAnswers) write(w *store.Writer) error {
	if a == nil {
		return nil
	}
	var errs []error
	if a.top != nil {
		errs = append(errs, heap.WriteKeptDominators(w, a.top))
	}
	if a.leaks != nil {
		errs = append(errs, heap.WriteKeptLeaks(w, a.leaks))
	}
	if a.retainers != nil {
		errs = append(errs, heap.WriteKeptRetainers(w, a.retainers))
	}
	return errors.Join(errs...)
}

// keepAnswers works out the answers a new index keeps for heap h, on
// its dominator tree r, shortest path tree t and the accumulation points
// of its biggest objects, with the paths of retainers --class worked out
// before (keepRetainers).
func keepAnswers(h *model.Heap, r *graph.Retention, t *graph.PathTree, retainers *heap.KeptRetainers, points *heap.AccumulationPoints) *keptAnswers {
	var top *heap.KeptDominators
	var wg sync.WaitGroup
	wg.Go(func() { top = heap.KeepDominators(h, r, indexedSize) })
	leaks := keepLeaks(h, r, t, points)
	wg.Wait()
	return builtAnswers(top, leaks, retainers)
}

// keepRetainers works out, for a new index, the paths `retainers
// --class` shows for each class, from the class chains of h's shortest
// path tree t, described as Session.Retainers describes them. nil without
// class chains, or for a dump whose objects cannot be read one by one
// (readsObjectsAtBuild). Their labels are the values of tens of thousands
// of objects (38 k on a 4 GiB synthetic dump), read from a plain dump at
// their offsets; in a compressed one they lie in nearly every member, and
// reading them took as much CPU time as decompressing the dump again
// (26.5 of the 197 CPU-s of that dump's build, gzipped as -gz), so there
// the paths keep the offsets of their objects' records and the question
// reads the labels of the few paths it shows (model.ReadStepLabels),
// only the names of their root threads and the steps from big arrays
// (labeledAtBuild) read here.
func keepRetainers(h *model.Heap, t *graph.PathTree, chains *graph.ClassChains) *heap.KeptRetainers {
	if chains == nil || !readsObjectsAtBuild(h) {
		return nil
	}
	sources := func(p graph.RetainerPaths) []model.ObjectIndex { return p.Sources(h) }
	var offsets func([]model.ObjectIndex) []int64
	if h.Source.Compression != string(input.Plain) {
		sources = func(p graph.RetainerPaths) []model.ObjectIndex {
			return append(p.RootThreadObjects(h), slices.DeleteFunc(p.Sources(h), func(x model.ObjectIndex) bool { return !labeledAtBuild(h, x) })...)
		}
		offsets = func(objs []model.ObjectIndex) []int64 {
			at := model.RecordOffsets(h, objs)
			for k, x := range objs {
				if labeledAtBuild(h, x) {
					at[k] = -1
				}
			}
			return at
		}
	}
	k, err := heap.KeepRetainers(chains, t, func(p graph.RetainerPaths) (heap.Retainers, error) {
		labels, names, err := labelsOf(h, p, sources(p))
		if err != nil {
			return heap.Retainers{}, err
		}
		return heap.DescribePaths(h, p, true, labels, names), nil
	}, offsets)
	if err != nil {
		return nil
	}
	return k
}

// labeledAtBuild reports whether the build of the index of a compressed
// dump labels the step from object x of a kept path, where it leaves the
// others to the question (keepRetainers): an object array of a gzip
// member's worth of elements or more, which the question would read to
// the element, through as many members: on a 12 GiB synthetic dump
// the paths of java.lang.String start at a root's array of 8.05 M
// elements (61 MiB of ids), whose reading took 0.60 s of the question's
// 1.1 s.
func labeledAtBuild(h *model.Heap, x model.ObjectIndex) bool {
	c := h.ClassOf(x)
	return c != model.NoClass && h.Classes[c].Elem == model.TypeObject && int64(h.ArrayLength(x))*int64(h.Source.IDSize) >= bigArrayBytes
}

// bigArrayBytes is the size of an object array's elements from which the
// build labels the steps from it (labeledAtBuild): the JVM's -gz member
// holds about a MiB. A variable for the tests.
var bigArrayBytes int64 = 1 << 20

// keepLeaks finds, for a new index, the leak suspects of h above
// keptLeakThreshold in the heaps leaks suspects by default, on the
// dominator tree r and the shortest path tree t, with their paths
// described as Session.Leaks describes them. nil for a dump whose
// objects cannot be read one by one (readsObjectsAtBuild), or whose
// values cannot be read (the question then says why).
func keepLeaks(h *model.Heap, r *graph.Retention, t *graph.PathTree, points *heap.AccumulationPoints) *heap.KeptLeaks {
	if !readsObjectsAtBuild(h) {
		return nil
	}
	heaps, err := h.SelectHeaps(heap.LeakHeaps(h))
	if err != nil {
		return nil
	}
	lo := heap.LeakOptions{Threshold: keptLeakThreshold, Classes: heap.KeptLeakClasses, Strong: t, Points: points, Heaps: heaps}
	l := heap.FindLeaks(h, r, lo)
	labels, names, err := pathLabels(h, l.Paths())
	if err != nil {
		return nil
	}
	l.Describe(h, labels, names)
	return &heap.KeptLeaks{Size: indexedSize, Classes: heap.KeptLeakClasses, Report: l, PathRetained: l.PathRetainedBytes(r)}
}

// readsObjectsAtBuild reports whether a build describes the leak
// suspects it keeps (their paths' labels read from the dump): where each
// object is read at its offset, in a plain binary dump or one the JVM
// gzipped (-gz: a member per MiB, so an object costs at most a MiB
// decompressed); a dump streamed again for every read is left to the
// questions.
func readsObjectsAtBuild(h *model.Heap) bool {
	if h.Source.Lines > 0 {
		return false
	}
	return h.Source.Compression == string(input.Plain) || h.ObjectReaderOptions().RandomAccess()
}

// classIndex is a fresh index opened for the heap's classes and the
// answers it keeps alone, without its per-object sections.
type classIndex struct {
	ix *store.Index
	// heap is the heap without its objects (model.ReadIndexClasses).
	heap    *model.Heap
	answers *keptAnswers
}

// openClassIndex opens the fresh index of the dump at path for its
// classes and kept answers; nil when there is none or it cannot be read
// (a question then opens it in full, which says why, or rebuilds it).
func openClassIndex(path string, o indexOptions) (*classIndex, []string) {
	place, id, err := locate(path, o)
	if err != nil {
		return nil, nil
	}
	ix, err := place.Open(id)
	if err != nil {
		return nil, nil
	}
	h, objects, err := model.ReadIndexClasses(ix)
	if err != nil || h.Source.Dumps == 0 {
		ix.Close()
		return nil, nil
	}
	h.Source.File = path
	dumpfile.Attach(h, path)
	return &classIndex{ix: ix, heap: h, answers: &keptAnswers{ix: ix, objects: objects}}, ignored(place)
}

// close closes the index.
func (c *classIndex) close() error {
	if c == nil {
		return nil
	}
	return c.ix.Close()
}

// classesIndex returns the session's index opened for its classes and
// kept answers, opening it the first time; nil when the session reads
// the dump without an index or its index is not fresh. s.mu is held.
func (s *Session) classesIndex() *classIndex {
	if s.classesTried {
		return s.classes
	}
	s.classesTried = true
	if s.o.NoIndex || s.o.Dump != -1 || s.o.Bare != nil || s.stdin() || s.notThreadDump() != nil {
		return nil
	}
	c, ignored := openClassIndex(s.path, s.indexOptions())
	if c == nil {
		return nil
	}
	s.classes = c
	for _, why := range ignored {
		s.noteln("warning: ignored %s", why)
	}
	s.warnTruncated(s.path, c.heap.Anomalies)
	return c
}

// classesIndexFor is classesIndex for a heap read with its objects or
// without: nil with them.
func (s *Session) classesIndexFor(objects bool) *classIndex {
	if objects {
		return nil
	}
	return s.classesIndex()
}

// keptAnswers returns the answers the session's index keeps, with the
// heap they are of (without its objects when the index was opened for
// them alone); nil when there is no index or the session's options
// change what the answers would be (--heap, --mapping,
// --keep-unreachable, another size mode: Answer checks the size).
func (s *Session) keptAnswers() (*keptAnswers, *model.Heap) {
	if len(s.o.Heaps) > 0 || s.o.Mapping != nil || s.o.KeepUnreachable {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.index != nil:
		return s.index.answers, s.index.Heap
	case s.heap != nil && s.objects:
		return nil, nil
	}
	c := s.classesIndex()
	if c == nil {
		return nil, nil
	}
	return c.answers, c.heap
}

// keptDominators answers Dominators for o from the answers the index
// keeps; false when they do not hold it.
func (s *Session) keptDominators(o heap.DominatorOptions) (heap.DominatorReport, bool) {
	a, h := s.keptAnswers()
	if a == nil || heap.MayHaveNative(h) {
		return heap.DominatorReport{}, false
	}
	o.Size = s.o.Size
	return a.dominators(s.noteln).Answer(o)
}

// keptRetainers answers Retainers for o from the answers the index
// keeps; false when they do not hold it (not a class target, weak
// references followed).
func (s *Session) keptRetainers(o graph.RetainerOptions) (heap.Retainers, bool) {
	if o.Class == nil || o.IncludeWeak {
		return heap.Retainers{}, false
	}
	a, h := s.keptAnswers()
	if a == nil {
		return heap.Retainers{}, false
	}
	r, ok, err := a.retainerPaths(h, s.noteln).Answer(graph.MatchingClasses(h, o.Class), o.Paths, func(steps []model.StepAt) ([]model.StepLabel, error) {
		return model.ReadStepLabels(h, steps)
	})
	if err != nil {
		s.noteln("warning: the paths the index keeps could not be labeled (%v): computing them", err)
		return heap.Retainers{}, false
	}
	return r, ok
}

// keptLeaks answers Leaks for o from the answers the index keeps; false
// when they do not hold it.
func (s *Session) keptLeaks(o LeakOptions) (Leaks, bool) {
	a, _ := s.keptAnswers()
	if a == nil {
		return Leaks{}, false
	}
	l, retained, ok := a.leakSuspects(s.noteln).Answer(o.Threshold, o.Classes, s.o.Size)
	return Leaks{Report: l, PathRetained: retained}, ok
}
