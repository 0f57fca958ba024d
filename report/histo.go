package report

import (
	"io"

	"github.com/hprofctl/hprofctl/analysis"
)

// Histogram renders a class histogram. JSON is an array of rows; tables
// end with the totals over every matching class. A dump that shows
// registered native sizes gets a native bytes column.
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
	if h.Native {
		g.columns = []column{{"#", count}, {"instances", count}, {"shallow bytes", bytes}, {"native bytes", bytes}, {"class", text}}
	}
	for i, r := range h.Rows {
		if h.Native {
			g.rows = append(g.rows, []any{i + 1, r.Instances, r.ShallowBytes, r.NativeBytes, r.Class})
			continue
		}
		g.rows = append(g.rows, []any{i + 1, r.Instances, r.ShallowBytes, r.Class})
	}
	if o.Format == Table {
		label := "total"
		if len(h.Rows) < h.MatchedClasses {
			label = "total of all " + itoa(h.MatchedClasses) + " classes"
		}
		g.footer = []any{"", h.Total.Instances, h.Total.ShallowBytes, label}
		if h.Native {
			g.footer = []any{"", h.Total.Instances, h.Total.ShallowBytes, h.Total.NativeBytes, label}
		}
	}
	return o.render(w, g)
}
