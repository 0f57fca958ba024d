package report

import (
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// TopConsumers renders the top of the dominator tree grouped by class,
// class loader or package. JSON is the array of rows; tables end with the
// reachable heap the percentages are shares of.
func TopConsumers(w io.Writer, t heap.TopConsumerReport, o Options) error {
	if o.Format == JSON {
		rows := t.Rows
		if rows == nil {
			rows = []heap.TopConsumerRow{}
		}
		return writeJSON(w, rows)
	}
	name := t.By
	if t.By == heap.ByClassLoader {
		name = "class loader"
	}
	g := grid{columns: []column{{"#", count}, {"objects", count}, {"retained bytes", bytes}, {"percent", percent}, {name, text}},
		none: "the dominator tree is empty: no object is reachable"}
	for i, r := range t.Rows {
		g.rows = append(g.rows, []any{i + 1, r.Objects, r.RetainedBytes, r.Percent, r.Name})
	}
	if o.Format == Table {
		label := "reachable heap"
		if len(t.Rows) < t.Groups {
			label += fmt.Sprintf(" (%d of %d groups shown)", len(t.Rows), t.Groups)
		}
		if t.KeptUnreachable {
			label += ", unreachable objects kept"
		}
		g.footer = []any{"", t.TopLevelObjects, t.TotalBytes, nil, label}
	}
	return o.render(w, g)
}
