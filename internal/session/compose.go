package session

import (
	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report/html"
)

// LeakOptions choose the leak suspects: what retains more than Threshold
// (a share of 1) of the heap, with the Classes biggest classes beneath
// each.
type LeakOptions struct {
	Threshold float64
	Classes   int
}

// Leaks are the leak suspects with their paths described, and what each
// step of each path retains.
type Leaks struct {
	Report       heap.LeakReport
	PathRetained [][]int64
}

// Leaks finds the leak suspects as o asks, among the objects of the heaps
// Options.Heaps names (else every heap but those all Android apps share),
// and describes their shortest paths from GC roots.
func (s *Session) Leaks(o LeakOptions) (Leaks, error) {
	if err := checkCount("classes", o.Classes, 0); err != nil {
		return Leaks{}, err
	}
	if l, ok := s.keptLeaks(o); ok {
		return l, nil
	}
	h, r, err := s.retained()
	if err != nil {
		return Leaks{}, err
	}
	lo := heap.LeakOptions{Threshold: o.Threshold, Classes: o.Classes}
	if lo.Heaps, err = s.suspectHeaps(h); err != nil {
		return Leaks{}, err
	}
	l, err := s.findLeaks(h, r, lo)
	if err != nil {
		return Leaks{}, err
	}
	labels, names, err := pathLabels(h, l.Paths())
	if err != nil {
		return Leaks{}, err
	}
	l.Describe(h, labels, names)
	return Leaks{Report: l, PathRetained: l.PathRetainedBytes(r)}, nil
}

// findLeaks finds the leak suspects on the strong shortest path tree,
// with the accumulation points the index keeps when r is its tree.
// The index's tree is not checked as a whole for them: leaks follow the
// paths of a few objects, each checked as it is walked
// (heap.FindLeaksChecked). A path that does not lead to a root sends them
// to StrongPaths, which checks the whole tree and, finding it damaged,
// computes it again with a warning.
func (s *Session) findLeaks(h *model.Heap, r *graph.Retention, lo heap.LeakOptions) (heap.LeakReport, error) {
	if x := s.indexOf(); x != nil && x.paths != nil {
		if r == x.retention {
			lo.Points = x.accumulationPoints(s.noteln)
		}
		lo.Strong = x.paths
		if l, err := heap.FindLeaksChecked(h, r, lo); err == nil {
			return l, nil
		}
	}
	var err error
	if lo.Strong, err = s.StrongPaths(); err != nil {
		return heap.LeakReport{}, err
	}
	return heap.FindLeaks(h, r, lo), nil
}

// ReportOptions choose what the HTML report lists: the leak suspects
// above Threshold (a share of 1), the Dominators biggest objects, and Top
// rows of the top consumer tables and the histogram.
type ReportOptions struct {
	Threshold  float64
	Dominators int
	Top        int
}

// reportLeakClasses is how many classes the report lists beneath each
// leak suspect.
const reportLeakClasses = 5

// Report composes the HTML report of a heap dump: overview, leak
// suspects, dominators, top consumers, histogram, threads and deadlocks.
// The report names no generator: the caller does.
func (s *Session) Report(o ReportOptions) (html.Report, error) {
	var rep html.Report
	if err := checkCount("top", o.Top, 1); err != nil {
		return rep, err
	}
	if _, err := s.Retention(); err != nil {
		return rep, err
	}
	var err error
	if rep.Info, err = s.Info(); err != nil {
		return rep, err
	}
	leaks, err := s.Leaks(LeakOptions{Threshold: o.Threshold, Classes: reportLeakClasses})
	if err != nil {
		return rep, err
	}
	rep.Leaks, rep.PathRetained = leaks.Report, leaks.PathRetained
	if rep.Dominators, err = s.Dominators(heap.DominatorOptions{Top: o.Dominators}); err != nil {
		return rep, err
	}
	for _, by := range []string{heap.ByClass, heap.ByPackage} {
		t, err := s.TopConsumers(heap.TopOptions{By: by, Top: o.Top})
		if err != nil {
			return rep, err
		}
		rep.Consumers = append(rep.Consumers, t)
	}
	if rep.Histogram, err = s.Histogram(heap.HistoOptions{Top: o.Top}); err != nil {
		return rep, err
	}
	// What a thread retains is measured on the tree of reachable objects
	// alone.
	if rep.Threads, err = s.HeapThreads(ThreadOptions{Retained: !s.o.KeepUnreachable}); err != nil {
		return rep, err
	}
	rep.Deadlocks, rep.DeadlockNotes, err = s.HeapDeadlocks()
	return rep, err
}

// diffSide is what a diff compares of one dump: its histogram of every
// class and, when retained sizes are compared, its top consumers by
// class.
type diffSide struct {
	Histo heap.Histo
	Top   *heap.TopConsumerReport
}

// diffSide returns the side of a diff this dump is, with the top
// consumers when retained; made once and kept.
func (s *Session) diffSide(retained bool) (diffSide, error) {
	if retained {
		return s.diffSides[1]()
	}
	return s.diffSides[0]()
}

func (s *Session) readDiffSide(retained bool) (diffSide, error) {
	h, err := s.dumpHeap(retained)
	if err != nil {
		return diffSide{}, err
	}
	var r *graph.Retention
	if retained {
		if r, err = s.Retention(); err != nil {
			return diffSide{}, err
		}
	}
	heaps, err := h.SelectHeaps(s.o.Heaps)
	if err != nil {
		return diffSide{}, err
	}
	var side diffSide
	if side.Histo, err = heap.Histogram(h, heap.HistoOptions{Size: s.o.Size, Heaps: heaps}); err != nil || !retained {
		return side, err
	}
	top, err := heap.TopConsumers(h, r, heap.TopOptions{By: heap.ByClass, Heaps: heaps})
	side.Top = &top
	return side, err
}

// Diff compares two dumps of the same application, older taken before
// newer, as o asks; with retained the retained sizes too.
func Diff(older, newer *Session, retained bool, o heap.DiffOptions) (heap.HeapDiff, error) {
	var sides [2]diffSide
	for k, s := range []*Session{older, newer} {
		var err error
		if sides[k], err = s.diffSide(retained); err != nil {
			return heap.HeapDiff{}, err
		}
	}
	return heap.Diff(sides[0].Histo, sides[1].Histo, sides[0].Top, sides[1].Top, o), nil
}
