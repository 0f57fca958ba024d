package report

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/oql"
)

// QueryStream writes an OQL query's rows as the query finds them: JSON
// and CSV row by row, as Query writes them all at once; a table, whose
// columns are as wide as their widest cell, once every row is in (Close).
type QueryStream struct {
	w       io.Writer
	o       Options
	columns []string
	rows    int
	csv     *csv.Writer
	table   [][]oql.Value
}

// NewQueryStream starts the answer to a query whose rows have columns.
func NewQueryStream(w io.Writer, columns []string, o Options) (*QueryStream, error) {
	q := &QueryStream{w: w, o: o, columns: columns}
	switch o.Format {
	case JSON:
		head, err := indentedJSON(columns, "  ")
		if err != nil {
			return nil, err
		}
		_, err = io.WriteString(w, "{\n  \"columns\": "+head+",\n  \"rows\": [")
		return q, err
	case CSV:
		q.csv = csv.NewWriter(w)
		return q, q.csv.Write(columns)
	}
	return q, nil
}

// Row writes one row.
func (q *QueryStream) Row(row []oql.Value) error {
	q.rows++
	switch q.o.Format {
	case JSON:
		cells := make([]any, len(row))
		for c, v := range row {
			cells[c] = v.JSON()
		}
		text, err := indentedJSON(cells, "    ")
		if err != nil {
			return err
		}
		sep := ",\n    "
		if q.rows == 1 {
			sep = "\n    "
		}
		_, err = io.WriteString(q.w, sep+text)
		return err
	case CSV:
		rec := make([]string, len(row))
		for c, v := range row {
			rec[c] = v.Text()
		}
		if err := q.csv.Write(rec); err != nil {
			return err
		}
		if q.rows%1024 == 0 {
			q.csv.Flush()
		}
		return q.csv.Error()
	}
	q.table = append(q.table, row)
	return nil
}

// Close ends the answer: JSON's closing brackets, CSV's last rows, or
// the whole table.
func (q *QueryStream) Close() error {
	switch q.o.Format {
	case JSON:
		end := "]\n}\n"
		if q.rows > 0 {
			end = "\n  ]\n}\n"
		}
		_, err := io.WriteString(q.w, end)
		return err
	case CSV:
		q.csv.Flush()
		return q.csv.Error()
	}
	return Query(q.w, &oql.Result{Columns: q.columns, Rows: q.table}, q.o)
}

// indentedJSON is v in JSON as writeJSON indents it, its lines after the
// first prefixed with prefix (its depth in the document).
func indentedJSON(v any, prefix string) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
