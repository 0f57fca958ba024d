package report

import (
	"io"

	"github.com/hprofctl/hprofctl/analysis"
)

// Histogram renders a class histogram. JSON is an array of rows; tables
// end with the totals over every matching class.
func Histogram(w io.Writer, h analysis.Histo, o Options) error {
	if o.Format == JSON {
		rows := h.Rows
		if rows == nil {
			rows = []analysis.HistoRow{}
		}
		return writeJSON(w, rows)
	}
	g := grid{columns: []column{{"#", count}, {"instances", count}, {"shallow bytes", bytes}},
		none: "no class with objects matches"}
	// A table gives each heap one column, its shallow bytes; CSV gives
	// each its instances too.
	for _, name := range h.HeapNames {
		if o.Format == CSV {
			g.columns = append(g.columns, column{name + " instances", count})
		}
		g.columns = append(g.columns, column{name + " bytes", bytes})
	}
	g.columns = append(g.columns, column{"class", text})
	byHeap := func(r analysis.HistoRow) []any {
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
		row := append([]any{i + 1, r.Instances, r.ShallowBytes}, byHeap(r)...)
		g.rows = append(g.rows, append(row, r.Class))
	}
	if o.Format == Table {
		label := "total"
		if len(h.Rows) < h.MatchedClasses {
			label = "total of all " + itoa(h.MatchedClasses) + " classes"
		}
		footer := append([]any{"", h.Total.Instances, h.Total.ShallowBytes}, byHeap(h.Total)...)
		g.footer = append(footer, label)
	}
	return o.render(w, g)
}
