package heap

import (
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionKeptLeaks is the index section KeptLeaks are kept in (JSON).
const SectionKeptLeaks = "answers.leaks"

// KeptLeakClasses is how many classes beneath each suspect KeptLeaks
// keep: `leaks` lists 5 by default.
const KeptLeakClasses = 20

// KeptLeaks are the leak suspects at one threshold, with their paths
// described, worked out when an index is built: `leaks` at that
// threshold then needs no pass over the objects.
type KeptLeaks struct {
	// Size is the size mode of the retained sizes.
	Size model.SizeMode `json:"size"`
	// Classes is how many classes beneath each suspect Report lists at
	// most.
	Classes int `json:"classes"`
	// Report holds the suspects above Report.Threshold, described.
	Report LeakReport `json:"report"`
	// PathRetained is what each step of each suspect's path retains
	// (LeakReport.PathRetainedBytes).
	PathRetained [][]int64 `json:"path_retained"`
}

// Answer is the report FindLeaks and Describe give at threshold with
// classes classes beneath each suspect, in size mode, and what the steps
// of its paths retain, from what k keeps; false when k does not hold it.
func (k *KeptLeaks) Answer(threshold float64, classes int, size model.SizeMode) (LeakReport, [][]int64, bool) {
	if k == nil || threshold != k.Report.Threshold || classes < 0 || classes > k.Classes || size != k.Size {
		return LeakReport{}, nil, false
	}
	out := k.Report
	out.Suspects = slices.Clone(out.Suspects)
	for i := range out.Suspects {
		s := &out.Suspects[i]
		s.BiggestClasses = slices.Clone(s.BiggestClasses[:min(classes, len(s.BiggestClasses))])
	}
	return out, k.PathRetained, true
}

// WriteKeptLeaks writes k into the index w.
func WriteKeptLeaks(w *store.Writer, k *KeptLeaks) error {
	return w.WriteJSON(SectionKeptLeaks, k)
}

// ReadKeptLeaks reads what WriteKeptLeaks wrote into ix; nil when the
// index keeps none. totals are the dominator tree's totals as the index
// keeps them (graph.ReadTotals). As with ReadKeptDominators, what
// the suspects say is checked for sense, not against the tree: the
// totals are the tree's; each suspect retains more than the threshold,
// no more than the total, with its percentages worked out from its
// sizes; its classes are ordered biggest first, no more than kept; and
// each step of its path has its retained size. A fault wraps
// store.ErrCorrupt.
func ReadKeptLeaks(ix *store.Index, totals graph.Totals) (*KeptLeaks, error) {
	return readKept(ix, SectionKeptLeaks, func(k *KeptLeaks) error { return k.check(keptTotals(totals)) })
}

// check reports what in k cannot be the leak report of a tree with
// totals.
func (k *KeptLeaks) check(totals DominatorReport) error {
	l := &k.Report
	switch {
	case k.Classes < 0 || k.Classes > KeptLeakClasses:
		return fmt.Errorf("%d classes per suspect", k.Classes)
	case !(l.Threshold > 0 && l.Threshold <= 1):
		return fmt.Errorf("threshold %v", l.Threshold)
	case l.KeptUnreachable || l.Unreachable != (Unreachable{Objects: totals.UnreachableObjects, Bytes: totals.UnreachableBytes, ReachableBytes: totals.ReachableBytes}):
		return fmt.Errorf("its unreachable objects are not the tree's")
	case l.Heaps == nil && l.TotalBytes != totals.ReachableBytes || l.TotalBytes < 0 || l.TotalBytes > totals.ReachableBytes:
		return fmt.Errorf("a total of %d bytes, the tree reaches %d", l.TotalBytes, totals.ReachableBytes)
	case l.Suspects == nil || len(k.PathRetained) != len(l.Suspects):
		return fmt.Errorf("%d suspects, %d paths", len(l.Suspects), len(k.PathRetained))
	}
	for i, s := range l.Suspects {
		if err := k.checkSuspect(s, k.PathRetained[i]); err != nil {
			return fmt.Errorf("suspect %d: %v", i, err)
		}
	}
	return nil
}

// checkSuspect reports what in suspect s, whose path's steps retain
// pathRetained, cannot be.
func (k *KeptLeaks) checkSuspect(s LeakSuspect, pathRetained []int64) error {
	l := &k.Report
	switch {
	case !(float64(s.RetainedBytes) > l.Threshold*float64(l.TotalBytes)) || s.RetainedBytes > l.TotalBytes || s.Percent != l.percent(s.RetainedBytes):
		return fmt.Errorf("it retains %d bytes (%v%%) of %d", s.RetainedBytes, s.Percent, l.TotalBytes)
	case s.AccumulationPoint != nil && (s.ObjectID != "" && s.AccumulationPoint.RetainedBytes > s.RetainedBytes || s.AccumulationPoint.Percent != l.percent(s.AccumulationPoint.RetainedBytes)):
		return fmt.Errorf("its accumulation point retains %d bytes", s.AccumulationPoint.RetainedBytes)
	case s.Path == nil || len(pathRetained) != len(s.Path) || s.BiggestClasses == nil || len(s.BiggestClasses) > k.Classes:
		return fmt.Errorf("a path of %d steps with %d sizes, %d classes", len(s.Path), len(pathRetained), len(s.BiggestClasses))
	}
	for j, c := range s.BiggestClasses {
		if c.RetainedBytes < 0 || c.RetainedBytes > s.RetainedBytes || c.Percent != l.percent(c.RetainedBytes) || j > 0 && c.RetainedBytes > s.BiggestClasses[j-1].RetainedBytes {
			return fmt.Errorf("class %d retains %d bytes", j, c.RetainedBytes)
		}
	}
	return nil
}
