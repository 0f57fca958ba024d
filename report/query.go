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
	return Generate(w, query{res}, o)
}

// query is an OQL query's result as a Document.
type query struct{ *oql.Result }

// JSON writes the column names and the rows.
func (q query) JSON(w io.Writer) error {
	out := queryJSON{Columns: q.Columns, Rows: make([][]any, len(q.Rows))}
	for k, row := range q.Rows {
		out.Rows[k] = make([]any, len(row))
		for c, v := range row {
			out.Rows[k][c] = v.JSON()
		}
	}
	return writeJSON(w, out)
}

// CSV writes the rows, each value as text.
func (q query) CSV(w io.Writer, o Options) error { return o.writeCSV(w, q.grid()) }

// Table writes the rows, each value as text.
func (q query) Table(w io.Writer, o Options) error { return o.writeTable(w, q.grid()) }

// grid is the rows, each value as text.
func (q query) grid() grid {
	g := grid{none: "no rows"}
	for _, c := range q.Columns {
		g.columns = append(g.columns, column{c, text, c})
	}
	for _, row := range q.Rows {
		cells := make([]any, len(row))
		for c, v := range row {
			cells[c] = v.Text()
		}
		g.rows = append(g.rows, cells)
	}
	return g
}
