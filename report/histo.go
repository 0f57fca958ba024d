package report

import (
	"io"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Histogram renders a class histogram. JSON is an array of rows; tables
// end with the totals over every matching class. A dump that shows
// registered native sizes gets a native bytes column.
func Histogram(w io.Writer, h heap.Histo, o Options) error {
	if o.Format == JSON {
		rows := h.Rows
		if rows == nil {
			rows = []heap.HistoRow{}
		}
		return writeJSON(w, rows)
	}
	g := grid{columns: []column{{"#", count}, {"instances", count}, {"shallow bytes", bytes}},
		none: "no class with objects matches"}
	// The dump's native sizes take a column after the shallow bytes.
	lead := func(r heap.HistoRow) []any {
		if h.Native {
			return []any{r.Instances, r.ShallowBytes, r.NativeBytes}
		}
		return []any{r.Instances, r.ShallowBytes}
	}
	if h.Native {
		g.columns = append(g.columns, column{"native bytes", bytes})
	}
	// A table gives each heap one column, its shallow bytes; CSV gives
	// each its instances too.
	for _, name := range h.HeapNames {
		if o.Format == CSV {
			g.columns = append(g.columns, column{name + " instances", count})
		}
		g.columns = append(g.columns, column{name + " bytes", bytes})
	}
	g.columns = append(g.columns, column{"class", text})
	byHeap := func(r heap.HistoRow) []any {
		var cells []any
		for _, hc := range r.Heaps {
			if o.Format == CSV {
				cells = append(cells, hc.Instances)
			}
			cells = append(cells, hc.ShallowBytes)
		}
		return cells
	}
	for i, r := range h.Rows {
		row := append(append([]any{i + 1}, lead(r)...), byHeap(r)...)
		g.rows = append(g.rows, append(row, r.Class))
	}
	if o.Format == Table {
		label := "total"
		if len(h.Rows) < h.MatchedClasses {
			label = "total of all " + itoa(h.MatchedClasses) + " classes"
		}
		footer := append(append([]any{""}, lead(h.Total)...), byHeap(h.Total)...)
		g.footer = append(footer, label)
	}
	return o.render(w, g)
}
