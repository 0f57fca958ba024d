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
	return Generate(w, topConsumers{t}, o)
}

// topConsumers is a top consumer report as a Document.
type topConsumers struct{ heap.TopConsumerReport }

// JSON writes the rows, the group under the key of the CSV column.
func (t topConsumers) JSON(w io.Writer) error { return writeRowsJSON(w, t.grid()) }

// CSV writes the rows.
func (t topConsumers) CSV(w io.Writer, o Options) error { return o.writeCSV(w, t.grid()) }

// Table writes the rows and the reachable heap they are shares of.
func (t topConsumers) Table(w io.Writer, o Options) error {
	g := t.grid()
	label := "reachable heap"
	if len(t.Rows) < t.Groups {
		label += fmt.Sprintf(" (%d of %d groups shown)", len(t.Rows), t.Groups)
	}
	if t.KeptUnreachable {
		label += ", unreachable objects kept"
	}
	g.footer = []any{"", t.TopLevelObjects, t.TotalBytes, nil, label}
	return o.writeTable(w, g)
}

// grid is the rows, the group column named for what groups them.
func (t topConsumers) grid() grid {
	name, key := t.By, t.By
	if t.By == heap.ByClassLoader {
		name, key = "class loader", "class_loader"
	}
	g := grid{columns: []column{{"#", count, ""}, {"objects", count, "objects"}, {"retained bytes", bytes, "retained_bytes"}, {"percent", percent, "percent"}, {name, text, key}},
		none: "the dominator tree is empty: no object is reachable"}
	for i, r := range t.Rows {
		g.rows = append(g.rows, []any{i + 1, r.Objects, r.RetainedBytes, r.Percent, r.Name})
	}
	return g
}
