package heap

import (
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionKeptDominators is the index section KeptDominators are kept in
// (JSON).
const SectionKeptDominators = "answers.dominators"

// Bounds of what KeepDominators keeps: the rows of the objects at the
// top of the dominator tree that retain most, and the children listed per
// row. `dominators` asks for 20 rows of 10 children by default.
const (
	keptDominatorRows     = 200
	keptDominatorChildren = 20
)

// KeptDominators are the first rows of the default dominator report (the
// top of the tree, every heap, no native sizes), worked out when an index
// is built: the report of `dominators --top N --children C` then needs
// no pass over the objects while N and C are within what was kept.
type KeptDominators struct {
	// Size is the size mode of the retained sizes the rows show.
	Size model.SizeMode `json:"size"`
	// Children is how many immediately dominated objects each row lists
	// at most.
	Children int `json:"children"`
	// Report is the report with the rows that retain most, each with its
	// Children biggest children; Selected counts every row.
	Report DominatorReport `json:"report"`
}

// KeepDominators works out the KeptDominators of heap h's dominator tree
// r, whose retained sizes are in size mode.
func KeepDominators(h *model.Heap, r *graph.Retention, size model.SizeMode) *KeptDominators {
	return keepDominators(h, r, size, keptDominatorRows, keptDominatorChildren)
}

// keepDominators is KeepDominators keeping rows rows of children
// children.
func keepDominators(h *model.Heap, r *graph.Retention, size model.SizeMode, rows, children int) *KeptDominators {
	o := DominatorOptions{Top: rows, Children: children, Size: size}
	return &KeptDominators{Size: size, Children: children, Report: Dominators(h, r, o)}
}

// Answer is the report Dominators gives for o from what k keeps, and
// whether k holds it: o must ask for the top of the tree in every heap,
// without native sizes or grouping, in k's size mode, for rows and
// children within those kept.
func (k *KeptDominators) Answer(o DominatorOptions) (DominatorReport, bool) {
	if k == nil || o.Class != nil || o.ByClass || o.Children < 0 || o.Native.Any() || !o.Heaps.All() || o.Size != k.Size || o.Children > k.Children {
		return DominatorReport{}, false
	}
	rows := k.Report.Rows
	off := max(o.Offset, 0)
	end := len(rows)
	if o.Top > 0 {
		end = min(off+o.Top, k.Report.Selected)
	} else {
		end = k.Report.Selected
	}
	if end > len(rows) {
		return DominatorReport{}, false
	}
	out := k.Report
	out.Rows = nil
	for _, row := range rows[min(off, end):end] {
		row.Dominated = slices.Clone(row.Dominated[:min(max(o.Children, 0), len(row.Dominated))])
		out.Rows = append(out.Rows, row)
	}
	return out, true
}

// WriteKeptDominators writes k into the index w.
func WriteKeptDominators(w *store.Writer, k *KeptDominators) error {
	return w.WriteJSON(SectionKeptDominators, k)
}

// ReadKeptDominators reads what WriteKeptDominators wrote into ix; nil
// when the index keeps none. totals are the dominator tree's totals as
// the index keeps them (graph.ReadTotals): the report must have them.
// The rows cannot be checked against the tree without reading it all,
// which is what they spare; what they say is checked for sense (ordered
// biggest first, each retaining no more than the reachable heap and its
// children no more than itself, as many as the report says) and a fault
// wraps store.ErrCorrupt.
func ReadKeptDominators(ix *store.Index, totals graph.Totals) (*KeptDominators, error) {
	return readKept(ix, SectionKeptDominators, func(k *KeptDominators) error { return k.check(keptTotals(totals)) })
}

// readKept reads the kept answer in section name of ix, nil when the
// index keeps none, and checks it with check: a fault wraps
// store.ErrCorrupt.
func readKept[T any](ix *store.Index, name string, check func(*T) error) (*T, error) {
	k, err := store.OptionalJSON[T](ix, name)
	if k == nil || err != nil {
		return nil, err
	}
	if err := check(k); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", store.ErrCorrupt, name, err)
	}
	return k, nil
}

// check reports what in k cannot be the report of a tree with totals.
func (k *KeptDominators) check(totals DominatorReport) error {
	d := k.Report
	switch {
	case k.Children < 0 || k.Children > keptDominatorChildren:
		return fmt.Errorf("%d children per row", k.Children)
	case d.Rows == nil && d.Selected > 0 || len(d.Rows) > keptDominatorRows || d.Selected < len(d.Rows) || int64(d.Selected) > totals.ReachableObjects:
		return fmt.Errorf("%d rows of %d selected, of %d reachable objects", len(d.Rows), d.Selected, totals.ReachableObjects)
	case d.Classes != nil || d.Native || d.ReachableNativeBytes != 0:
		return fmt.Errorf("the report has classes or native sizes")
	case d.ReachableObjects != totals.ReachableObjects || d.ReachableBytes != totals.ReachableBytes ||
		d.UnreachableObjects != totals.UnreachableObjects || d.UnreachableBytes != totals.UnreachableBytes || d.KeptUnreachable != totals.KeptUnreachable:
		return fmt.Errorf("its totals are not the tree's")
	}
	for i, row := range d.Rows {
		if err := checkKeptRow(row, k.Children, d.ReachableBytes); err != nil {
			return fmt.Errorf("row %d: %v", i, err)
		}
		if i > 0 && row.RetainedBytes > d.Rows[i-1].RetainedBytes {
			return fmt.Errorf("row %d retains more than the row before it", i)
		}
	}
	return nil
}

// checkKeptRow reports what in a kept row of the top of the tree, which
// lists up to children of its children, cannot be.
func checkKeptRow(row DominatorRow, children int, reachable int64) error {
	switch {
	case row.ImmediateDominator != RootID:
		return fmt.Errorf("its immediate dominator is %q, not the root", row.ImmediateDominator)
	case row.RetainedBytes < row.ShallowBytes || row.ShallowBytes < 0 || row.RetainedBytes > reachable || row.RetainedObjects < 1:
		return fmt.Errorf("it retains %d bytes in %d objects, %d of them its own", row.RetainedBytes, row.RetainedObjects, row.ShallowBytes)
	case row.Dominated == nil || len(row.Dominated) > min(children, row.DominatedCount) || int64(row.DominatedCount) >= row.RetainedObjects:
		return fmt.Errorf("it lists %d of %d children, retaining %d objects", len(row.Dominated), row.DominatedCount, row.RetainedObjects)
	}
	for j, c := range row.Dominated {
		if c.RetainedBytes > row.RetainedBytes-row.ShallowBytes || c.RetainedBytes < 0 || j > 0 && c.RetainedBytes > row.Dominated[j-1].RetainedBytes {
			return fmt.Errorf("child %d retains %d bytes", j, c.RetainedBytes)
		}
	}
	return nil
}

// keptTotals is TreeTotals of the tree an index keeps, which keeps no
// unreachable object as reachable, from its totals t.
func keptTotals(t graph.Totals) DominatorReport {
	return DominatorReport{ReachableObjects: t.ReachableObjects, ReachableBytes: t.ReachableBytes, UnreachableObjects: t.Unreachable, UnreachableBytes: t.UnreachableBytes}
}
