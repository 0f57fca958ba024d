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
		return dominatorClasses(w, d, o)
	}
	if o.Format == JSON {
		rows := d.Rows
		if rows == nil {
			rows = []heap.DominatorRow{}
		}
		return writeJSON(w, rows)
	}
	g := grid{columns: []column{{"#", count}, {"retained bytes", bytes}, {"retained objects", count},
		{"shallow bytes", bytes}, {"object", text}, {"class", text}, {"immediate dominator", text}},
		none: fmt.Sprintf("no object in the dominator tree matches (reachable heap: %s objects, %s)",
			o.cell(count, d.ReachableObjects, false), o.cell(bytes, d.ReachableBytes, false))}
	// withNative puts a row's retained native bytes after its retained
	// bytes when the dump shows native sizes.
	withNative := func(row []any, native any) []any {
		if !d.Native {
			return row
		}
		return append(row[:2:2], append([]any{native}, row[2:]...)...)
	}
	if d.Native {
		g.columns = withNativeColumn(g.columns, 2)
	}
	// An Android dump's rows say which heap each object lies in, in a
	// last column.
	withHeap := false
	for _, r := range d.Rows {
		withHeap = withHeap || r.Heap != ""
	}
	heapCell := func(row []any, heap string) []any {
		if withHeap {
			return append(row, heap)
		}
		return row
	}
	if withHeap {
		g.columns = append(g.columns, column{"heap", text})
	}
	for i, r := range d.Rows {
		g.rows = append(g.rows, heapCell(withNative([]any{i + 1, r.RetainedBytes, r.RetainedObjects, r.ShallowBytes, r.ObjectID, r.Class, r.ImmediateDominator}, r.RetainedNativeBytes), r.Heap))
		if o.Format == CSV {
			continue
		}
		for _, k := range r.Dominated {
			g.rows = append(g.rows, heapCell(withNative([]any{"", k.RetainedBytes, nil, nil, "  " + k.ObjectID, "  " + k.Class, ""}, k.RetainedNativeBytes), ""))
		}
		if more := r.DominatedCount - len(r.Dominated); more > 0 && len(r.Dominated) > 0 {
			g.rows = append(g.rows, heapCell(withNative([]any{"", nil, nil, nil, fmt.Sprintf("  … %d more", more), "", ""}, nil), ""))
		}
	}
	if o.Format == Table {
		label := "reachable heap"
		if len(d.Rows) < d.Selected {
			label += fmt.Sprintf(" (%d of %d objects shown)", len(d.Rows), d.Selected)
		}
		g.footer = heapCell(withNative([]any{"", d.ReachableBytes, d.ReachableObjects, nil, label, "", ""}, d.ReachableNativeBytes), "")
	}
	if err := o.render(w, g); err != nil {
		return err
	}
	return unreachableNote(w, d, o)
}

// dominatorClasses renders the per-class aggregate of --by-class.
func dominatorClasses(w io.Writer, d heap.DominatorReport, o Options) error {
	if o.Format == JSON {
		return writeJSON(w, d.Classes)
	}
	g := grid{columns: []column{{"#", count}, {"objects", count}, {"shallow bytes", bytes}, {"retained bytes", bytes}, {"class", text}},
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
	if err := o.render(w, g); err != nil {
		return err
	}
	return unreachableNote(w, d, o)
}

// unreachableNote says, below a table, what the dominator tree left out.
func unreachableNote(w io.Writer, d heap.DominatorReport, o Options) error {
	if o.Format != Table || d.UnreachableObjects == 0 {
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
	out = append(out, column{"retained native", bytes})
	return append(out, columns[at:]...)
}
