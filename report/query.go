package report

import (
	"io"

	"github.com/hprofctl/hprofctl/analysis/oql"
)

// queryJSON is a query's result for scripts: the column names and one
// array of values per row.
type queryJSON struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// Query renders the result of an OQL query: JSON keeps numbers, booleans
// and null as such and names objects by their "0x…" ids; a table and CSV
// show each value as text (null empty).
func Query(w io.Writer, res *oql.Result, o Options) error {
	if o.Format == JSON {
		out := queryJSON{Columns: res.Columns, Rows: make([][]any, len(res.Rows))}
		for k, row := range res.Rows {
			out.Rows[k] = make([]any, len(row))
			for c, v := range row {
				out.Rows[k][c] = v.JSON()
			}
		}
		return writeJSON(w, out)
	}
	g := grid{none: "no rows"}
	for _, c := range res.Columns {
		g.columns = append(g.columns, column{c, text})
	}
	for _, row := range res.Rows {
		cells := make([]any, len(row))
		for c, v := range row {
			cells[c] = v.Text()
		}
		g.rows = append(g.rows, cells)
	}
	return o.render(w, g)
}
