package report

import (
	"io"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Histogram renders a class histogram. JSON is an array of rows; tables
// end with the totals over every matching class. A dump that shows
// registered native sizes gets a native bytes column.
func Histogram(w io.Writer, h heap.Histo, o Options) error {
	return Generate(w, histogram{h}, o)
}

// histogram is a class histogram as a Document.
type histogram struct{ heap.Histo }

// JSON writes the rows.
func (h histogram) JSON(w io.Writer) error { return writeJSON(w, nonNil(h.Rows)) }

// CSV writes the rows, each heap's instances and bytes in columns of
// their own.
func (h histogram) CSV(w io.Writer, o Options) error { return o.writeCSV(w, h.grid(true)) }

// Table writes the rows, each heap's bytes in a column of its own, and
// the totals.
func (h histogram) Table(w io.Writer, o Options) error {
	g := h.grid(false)
	label := "total"
	if len(h.Rows) < h.MatchedClasses {
		label = "total of all " + itoa(h.MatchedClasses) + " classes"
	}
	footer := append(append([]any{""}, h.lead(h.Total)...), heapCells(h.Total, false)...)
	g.footer = append(footer, label)
	return o.writeTable(w, g)
}

// grid is the histogram's rows: a table gives each heap one column, its
// shallow bytes; CSV gives each its instances too.
func (h histogram) grid(forCSV bool) grid {
	g := grid{columns: []column{{"#", count, ""}, {"instances", count, "instances"}, {"shallow bytes", bytes, "shallow_bytes"}},
		none: "no class with objects matches"}
	if h.Native {
		g.columns = append(g.columns, column{"native bytes", bytes, "native_bytes"})
	}
	for _, name := range h.HeapNames {
		if forCSV {
			g.columns = append(g.columns, column{name + " instances", count, name + "_instances"})
		}
		g.columns = append(g.columns, column{name + " bytes", bytes, name + "_shallow_bytes"})
	}
	g.columns = append(g.columns, column{"class", text, "class"})
	for i, r := range h.Rows {
		row := append(append([]any{i + 1}, h.lead(r)...), heapCells(r, forCSV)...)
		g.rows = append(g.rows, append(row, r.Class))
	}
	return g
}

// lead is a row's instances and shallow bytes, and its native bytes when
// the dump shows native sizes.
func (h histogram) lead(r heap.HistoRow) []any {
	if h.Native {
		return []any{r.Instances, r.ShallowBytes, r.NativeBytes}
	}
	return []any{r.Instances, r.ShallowBytes}
}

// heapCells is a row's cells of each heap.
func heapCells(r heap.HistoRow, forCSV bool) []any {
	var cells []any
	for _, hc := range r.Heaps {
		if forCSV {
			cells = append(cells, hc.Instances)
		}
		cells = append(cells, hc.ShallowBytes)
	}
	return cells
}
