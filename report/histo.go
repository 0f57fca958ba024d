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
	g := grid{columns: []column{{"#", count}, {"instances", count}, {"shallow bytes", bytes}, {"class", text}},
		none: "no class with objects matches"}
	for i, r := range h.Rows {
		g.rows = append(g.rows, []any{i + 1, r.Instances, r.ShallowBytes, r.Class})
	}
	if o.Format == Table {
		label := "total"
		if len(h.Rows) < h.MatchedClasses {
			label = "total of all " + itoa(h.MatchedClasses) + " classes"
		}
		g.footer = []any{"", h.Total.Instances, h.Total.ShallowBytes, label}
	}
	return o.render(w, g)
}
