package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// listedClasses is how many new or gone classes a table names before it
// only counts the rest.
const listedClasses = 10

// Diff renders what changed between two dumps. JSON is the whole diff;
// CSV the class rows; tables the class rows with the total, the new and
// gone classes, the top of the dominator tree by class before and after,
// and what grew past the limit.
func Diff(w io.Writer, d heap.HeapDiff, o Options) error {
	return Generate(w, diffReport{d}, o)
}

// diffReport is what changed between two dumps, as a Document.
type diffReport struct{ heap.HeapDiff }

// JSON writes the whole diff.
func (d diffReport) JSON(w io.Writer) error { return writeJSON(w, d.HeapDiff) }

// CSV writes the class rows.
func (d diffReport) CSV(w io.Writer, o Options) error { return o.writeCSV(w, d.classes()) }

// Table writes the class rows with the total, the new and gone classes,
// the retained sizes at the top of the dominator tree and what grew past
// the limit.
func (d diffReport) Table(w io.Writer, o Options) error {
	g := d.classes()
	label := "total"
	if len(d.Classes) < d.ChangedClasses {
		label += fmt.Sprintf(" (%d of %d changed classes shown)", len(d.Classes), d.ChangedClasses)
	}
	t := d.Total
	g.footer = []any{"", t.OldInstances, t.NewInstances, t.InstancesDelta, t.OldBytes, t.NewBytes, t.BytesDelta, label}
	if len(g.rows) == 0 {
		g.none = fmt.Sprintf("no class changed (%s instances, %s in both)", o.cell(count, t.NewInstances, false), o.cell(bytes, t.NewBytes, false))
	}
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	if err := classList(w, "new classes", d.NewClasses); err != nil {
		return err
	}
	if err := classList(w, "gone classes", d.GoneClasses); err != nil {
		return err
	}
	if d.Retained != nil {
		if err := d.retainedTable(w, o); err != nil {
			return err
		}
	}
	if d.Limit == nil {
		return nil
	}
	limit := o.cell(bytes, *d.Limit, false)
	var err error
	if len(d.OverLimit) == 0 {
		_, err = fmt.Fprintf(w, "nothing grew more than the limit (%s)\n", limit)
	} else {
		_, err = fmt.Fprintf(w, "grew more than the limit (%s): %s\n", limit, strings.Join(d.OverLimit, ", "))
	}
	return err
}

// classes is the class rows.
func (d diffReport) classes() grid {
	g := grid{columns: []column{{"#", count, ""}, {"old instances", count, "old_instances"}, {"new instances", count, "new_instances"}, {"instances delta", countDelta, "instances_delta"},
		{"old bytes", bytes, "old_bytes"}, {"new bytes", bytes, "new_bytes"}, {"bytes delta", bytesDelta, "bytes_delta"}, {"class", text, "class"}},
		none: "no class changed"}
	for i, r := range d.Classes {
		g.rows = append(g.rows, []any{i + 1, r.OldInstances, r.NewInstances, r.InstancesDelta, r.OldBytes, r.NewBytes, r.BytesDelta, r.Class})
	}
	return g
}

// retainedTable writes the retained sizes at the top of the dominator
// tree by class, before and after, with the reachable heap.
func (d diffReport) retainedTable(w io.Writer, o Options) error {
	if _, err := fmt.Fprintln(w, "\nretained at the top of the dominator tree, by class:"); err != nil {
		return err
	}
	g := grid{columns: []column{{"#", count, ""}, {"old objects", count, "old_objects"}, {"new objects", count, "new_objects"}, {"old retained", bytes, "old_retained_bytes"}, {"new retained", bytes, "new_retained_bytes"}, {"retained delta", bytesDelta, "retained_delta"}, {"class", text, "class"}},
		none: "no change"}
	for i, r := range d.Retained {
		g.rows = append(g.rows, []any{i + 1, r.OldObjects, r.NewObjects, r.OldRetainedBytes, r.NewRetainedBytes, r.RetainedDelta, r.Class})
	}
	label := "reachable heap"
	if len(d.Retained) < d.ChangedRetained {
		label += fmt.Sprintf(" (%d of %d changed classes shown)", len(d.Retained), d.ChangedRetained)
	}
	g.footer = []any{"", nil, nil, d.OldReachableBytes, d.NewReachableBytes, d.ReachableDelta(), label}
	return o.writeTable(w, g)
}

// classList writes a line naming the classes of a list, the first
// listedClasses of them; nothing for an empty list.
func classList(w io.Writer, what string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	shown := names[:min(len(names), listedClasses)]
	line := fmt.Sprintf("%s (%d): %s", what, len(names), strings.Join(shown, ", "))
	if len(shown) < len(names) {
		line += fmt.Sprintf(", … %d more", len(names)-len(shown))
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
