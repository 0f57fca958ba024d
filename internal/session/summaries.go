package session

import (
	"errors"
	"runtime"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
)

// summaries are what a build works out beyond the trees, so that
// questions that would otherwise pass over every object or reference
// answer from a little data: the class chains of `retainers --class`, the
// contracted graph of `threads --retained` and the sums of `collections`. Each is kept in a section
// of its own; an index without it (an older build's) answers as before,
// by computing.
type summaries struct {
	chainsOnce sync.Once
	// chains are the class chains of the index's shortest path tree;
	// nil when the index keeps none or they did not check.
	chains *graph.ClassChains

	edgesOnce sync.Once
	// edges are the contracted graph of the index's dominator tree; nil
	// when the index keeps none or they did not check.
	edges *threads.ThreadEdgeList

	sumsOnce sync.Once
	// sums are the collections' sums per class; nil when the index keeps
	// none or they did not check.
	sums *heap.CollectionSums

	pointsOnce sync.Once
	// points are the accumulation points of the biggest objects at the
	// top of the dominator tree; nil when the index keeps none or they
	// did not check.
	points *heap.AccumulationPoints
}

// summarizeCollectAbove is the number of objects from which summarize
// collects the garbage first: below it a forced collection costs more
// than the memory it saves.
const summarizeCollectAbove = 1 << 20

// summarize works out the summaries of heap h that its dominator tree r
// gives for a new index, beyond those worked out beside the trees (the
// class chains, the collections' sums, the contracted graph: see
// analyseHeap), which the caller sets.
//
// The work memory of the dominator tree is garbage by now: on a big heap
// it is collected first, so that the summaries reuse it instead of
// growing the heap past the build's peak.
//
// A summary that cannot be worked out is left out: the question then
// computes its answer, and says why if it cannot either. step is told as
// each summary is worked out.
func summarize(h *model.Heap, r *graph.Retention, step func(string)) *summaries {
	if h.NumObjects() > summarizeCollectAbove {
		runtime.GC()
	}
	s := &summaries{points: heap.SummarizeAccumulation(r)}
	step("accumulation points found")
	s.chainsOnce.Do(func() {})
	s.edgesOnce.Do(func() {})
	s.sumsOnce.Do(func() {})
	s.pointsOnce.Do(func() {})
	return s
}

// threadEdges finds the contracted graph of the dominator tree whose
// immediate dominators are idom for a new index: nil when it cannot
// (the question then computes it, and says why if it cannot either).
// step is told once it is found.
func threadEdges(h *model.Heap, idom []model.ObjectIndex, step func(string)) *threads.ThreadEdgeList {
	edges, err := threads.ThreadEdgesOf(h, idom)
	step("thread edges found")
	if err != nil {
		return nil
	}
	return edges
}

// collectionSums are the sums of h's collections for the index: nil for
// a dump whose values are not read again at build (see stringCensus), or
// cannot be (the question then says why).
func collectionSums(h *model.Heap) *heap.CollectionSums {
	if h.Source.Compression != string(input.Plain) || h.Source.Lines > 0 {
		return nil
	}
	s, err := heap.SumCollections(h, indexedSize)
	if err != nil {
		return nil
	}
	return s
}

// sumsDuring is the phase of the dominator tree (graph.ComputeRetention)
// at which a build starts summing the collections (collectionSums).
const sumsDuring = "immediate dominators"

// background is a job of the build run on a goroutine of its own once
// started, beside the dominator tree's phases: the collections' sums,
// the contracted graph of `threads --retained`.
type background[T any] struct {
	once sync.Once
	done chan T
}

// newBackground returns a job not started yet.
func newBackground[T any]() *background[T] {
	return &background[T]{done: make(chan T, 1)}
}

// start starts work, the first time only: a later call's work is not
// done.
func (b *background[T]) start(work func() T) {
	b.once.Do(func() {
		go func() { b.done <- work() }()
	})
}

// wait returns what the work returned; start must have been called.
func (b *background[T]) wait() T { return <-b.done }

// write writes the summaries into the index w.
func (s *summaries) write(w *store.Writer) error {
	if s == nil {
		return nil
	}
	var errs []error
	if s.chains != nil {
		errs = append(errs, graph.WriteClassChains(w, s.chains))
	}
	if s.edges != nil {
		errs = append(errs, threads.WriteThreadEdges(w, s.edges))
	}
	if s.sums != nil {
		errs = append(errs, heap.WriteCollectionSums(w, s.sums))
	}
	if s.points != nil {
		errs = append(errs, heap.WriteAccumulationPoints(w, s.points))
	}
	return errors.Join(errs...)
}

// checkSummarySections checks, as the index opens, the checksums of the
// summaries' and kept answers' sections it holds (they are small): a
// damaged one makes the index rebuilt like any other damaged section. What they say is checked
// against the heap when each is first used.
func checkSummarySections(ix *store.Index) error {
	for _, name := range []string{graph.SectionClassChains, heap.SectionCollectionSums, heap.SectionKeptDominators, heap.SectionKeptLeaks, heap.SectionKeptRetainers} {
		if _, ok := ix.Section(name); ok {
			if _, err := ix.Blob(name); err != nil {
				return err
			}
		}
	}
	if _, ok := ix.Section(threads.SectionThreadEdges); ok {
		if _, err := store.Array[uint64](ix, threads.SectionThreadEdges); err != nil {
			return err
		}
	}
	if _, ok := ix.Section(heap.SectionAccumulationPoints); ok {
		if _, err := store.Array[uint32](ix, heap.SectionAccumulationPoints); err != nil {
			return err
		}
	}
	return nil
}

// classChains returns the class chains of the shortest path tree that x
// holds, read from its index on first use; nil when there are none (a
// fault is said through note, and the question computes its answer).
func (x *indexed) classChains(note func(string, ...any)) *graph.ClassChains {
	s := x.summaries
	if s == nil {
		return nil
	}
	s.chainsOnce.Do(func() {
		c, err := graph.ReadClassChains(x.ix, x.Heap, x.paths)
		if err != nil {
			note("warning: the index's class chains are not used, they are computed again: %s: %v", x.Path, err)
			return
		}
		s.chains = c
	})
	return s.chains
}

// threadEdges returns the contracted graph of the dominator tree that x
// holds, read from its index on first use; nil when there is none (a
// fault is said through note, and the question computes it).
func (x *indexed) threadEdges(note func(string, ...any)) *threads.ThreadEdgeList {
	s := x.summaries
	if s == nil {
		return nil
	}
	s.edgesOnce.Do(func() {
		e, err := threads.ReadThreadEdges(x.ix, x.Heap, x.retention)
		if err != nil {
			note("warning: the index's thread edges are not used, they are computed again: %s: %v", x.Path, err)
			return
		}
		s.edges = e
	})
	return s.edges
}

// collectionSums returns the sums of the collections of x's heap, read
// from its index on first use; nil when there are none (a fault is said
// through note, and the question reads the collections).
func (x *indexed) collectionSums(note func(string, ...any)) *heap.CollectionSums {
	s := x.summaries
	if s == nil {
		return nil
	}
	s.sumsOnce.Do(func() {
		c, err := heap.ReadCollectionSums(x.ix, x.Heap)
		if err != nil {
			note("warning: the index's collection sums are not used, the collections are read again: %s: %v", x.Path, err)
			return
		}
		s.sums = c
	})
	return s.sums
}

// accumulationPoints returns the accumulation points of the biggest
// objects at the top of the dominator tree that x holds, read from its
// index on first use, after the tree was checked; nil when there are
// none (a fault is said through note, and leaks find the points again).
func (x *indexed) accumulationPoints(note func(string, ...any)) *heap.AccumulationPoints {
	s := x.summaries
	if s == nil {
		return nil
	}
	s.pointsOnce.Do(func() {
		p, err := heap.ReadAccumulationPoints(x.ix, x.retention)
		if err != nil {
			note("warning: the index's accumulation points are not used, they are found again: %s: %v", x.Path, err)
			return
		}
		s.points = p
	})
	return s.points
}
