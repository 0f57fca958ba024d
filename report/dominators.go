package report

import (
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Dominators renders a dominator report. JSON is the array of rows (or of
// class rows with --by-class); tables list each row's biggest dominated
// objects below it and end with what the tree leaves out.
func Dominators(w io.Writer, d heap.DominatorReport, o Options) error {
	if d.Classes != nil {
		return Generate(w, dominatorClasses{d}, o)
	}
	return Generate(w, dominators{d, withHeap(d.Rows)}, o)
}

// dominators is a dominator report's objects, as a Document; heaps is
// set for an Android dump's rows, which say which heap each object lies
// in, in a last column.
type dominators struct {
	heap.DominatorReport
	heaps bool
}

// JSON writes the rows.
func (d dominators) JSON(w io.Writer) error { return writeJSON(w, nonNil(d.Rows)) }

// CSV writes the rows.
func (d dominators) CSV(w io.Writer, o Options) error { return o.writeCSV(w, d.grid(false)) }

// Table writes the rows, each with the biggest objects it dominates, the
// reachable heap, and what the tree leaves out.
func (d dominators) Table(w io.Writer, o Options) error {
	g := d.grid(true)
	g.none = fmt.Sprintf("no object in the dominator tree matches (reachable heap: %s objects, %s)",
		o.cell(count, d.ReachableObjects, false), o.cell(bytes, d.ReachableBytes, false))
	label := "reachable heap"
	if len(d.Rows) < d.Selected {
		label += fmt.Sprintf(" (%d of %d objects shown)", len(d.Rows), d.Selected)
	}
	g.footer = d.heapCell(d.withNative([]any{"", d.ReachableBytes, d.ReachableObjects, nil, label, "", ""}, d.ReachableNativeBytes), "")
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	return unreachableNote(w, d.DominatorReport, o)
}

// grid is the rows, with the objects each dominates below it when
// dominated is set.
func (d dominators) grid(dominated bool) grid {
	g := grid{columns: []column{{"#", count, ""}, {"retained bytes", bytes, "retained_bytes"}, {"retained objects", count, "retained_objects"},
		{"shallow bytes", bytes, "shallow_bytes"}, {"object", ident, "object_id"}, {"class", text, "class"}, {"immediate dominator", ident, "immediate_dominator"}}}
	if d.Native {
		g.columns = withNativeColumn(g.columns, 2)
	}
	if d.heaps {
		g.columns = append(g.columns, column{"heap", text, "heap"})
	}
	for i, r := range d.Rows {
		g.rows = append(g.rows, d.heapCell(d.withNative([]any{i + 1, r.RetainedBytes, r.RetainedObjects, r.ShallowBytes, r.ObjectID, r.Class, r.ImmediateDominator}, r.RetainedNativeBytes), r.Heap))
		if !dominated {
			continue
		}
		for _, k := range r.Dominated {
			g.rows = append(g.rows, d.heapCell(d.withNative([]any{"", k.RetainedBytes, nil, nil, "  " + k.ObjectID, "  " + k.Class, ""}, k.RetainedNativeBytes), ""))
		}
		if more := r.DominatedCount - len(r.Dominated); more > 0 && len(r.Dominated) > 0 {
			g.rows = append(g.rows, d.heapCell(d.withNative([]any{"", nil, nil, nil, fmt.Sprintf("  … %d more", more), "", ""}, nil), ""))
		}
	}
	return g
}

// withNative puts a row's retained native bytes after its retained bytes
// when the dump shows native sizes.
func (d dominators) withNative(row []any, native any) []any {
	if !d.Native {
		return row
	}
	return append(row[:2:2], append([]any{native}, row[2:]...)...)
}

// withHeap tells rows of which some say which heap their object lies in.
func withHeap(rows []heap.DominatorRow) bool {
	for _, r := range rows {
		if r.Heap != "" {
			return true
		}
	}
	return false
}

// heapCell adds a row's heap, when the rows have a heap column.
func (d dominators) heapCell(row []any, heap string) []any {
	if d.heaps {
		return append(row, heap)
	}
	return row
}

// dominatorClasses is the per-class aggregate of --by-class, as a
// Document.
type dominatorClasses struct{ heap.DominatorReport }

// JSON writes the class rows.
func (d dominatorClasses) JSON(w io.Writer) error { return writeJSON(w, d.Classes) }

// CSV writes the class rows.
func (d dominatorClasses) CSV(w io.Writer, o Options) error { return o.writeCSV(w, d.grid()) }

// Table writes the class rows and what the tree leaves out.
func (d dominatorClasses) Table(w io.Writer, o Options) error {
	if err := o.writeTable(w, d.grid()); err != nil {
		return err
	}
	return unreachableNote(w, d.DominatorReport, o)
}

// grid is the class rows.
func (d dominatorClasses) grid() grid {
	g := grid{columns: []column{{"#", count, ""}, {"objects", count, "objects"}, {"shallow bytes", bytes, "shallow_bytes"}, {"retained bytes", bytes, "retained_bytes"}, {"class", text, "class"}},
		none: "no class in the dominator tree matches"}
	if d.Native {
		g.columns = withNativeColumn(g.columns, 4)
	}
	for i, r := range d.Classes {
		row := []any{i + 1, r.Objects, r.ShallowBytes, r.RetainedBytes, r.Class}
		if d.Native {
			row = []any{i + 1, r.Objects, r.ShallowBytes, r.RetainedBytes, r.RetainedNativeBytes, r.Class}
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// unreachableNote says, below a table, what the dominator tree left out.
func unreachableNote(w io.Writer, d heap.DominatorReport, o Options) error {
	if d.UnreachableObjects == 0 {
		return nil
	}
	size := o.cell(bytes, d.UnreachableBytes, false)
	var err error
	if d.KeptUnreachable {
		_, err = fmt.Fprintf(w, "%s unreachable objects (%s) kept under the root (--keep-unreachable)\n", o.cell(count, d.UnreachableObjects, false), size)
	} else {
		_, err = fmt.Fprintf(w, "%s unreachable objects (%s) left out; --keep-unreachable includes them\n", o.cell(count, d.UnreachableObjects, false), size)
	}
	return err
}

// withNativeColumn inserts the retained native bytes column at place at.
func withNativeColumn(columns []column, at int) []column {
	out := append([]column{}, columns[:at]...)
	out = append(out, column{"retained native", bytes, "retained_native_bytes"})
	return append(out, columns[at:]...)
}
