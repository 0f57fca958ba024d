package report

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// stringCells is how many characters of a value a table shows; longer
// ones end in "…". JSON and CSV give the whole value.
const stringCells = 80

// DuplicateStrings renders the groups of duplicated Strings. JSON is the
// array of rows; tables end with the total of all groups.
func DuplicateStrings(w io.Writer, d heap.DuplicateStringReport, o Options) error {
	if o.Format == JSON {
		rows := d.Rows
		if rows == nil {
			rows = []heap.DuplicateString{}
		}
		return writeJSON(w, rows)
	}
	g := grid{columns: []column{{"#", count}, {"count", count}, {"wasted bytes", bytes}, {"value", text}},
		none: "no String value is held by enough Strings"}
	for i, r := range d.Rows {
		value := r.Value
		if o.Format == Table {
			value = shortValue(value)
		}
		g.rows = append(g.rows, []any{i + 1, r.Count, r.WastedBytes, value})
	}
	if o.Format == Table {
		label := fmt.Sprintf("all %d duplicated values", d.Groups)
		if len(d.Rows) < d.Groups {
			label += fmt.Sprintf(" (%d shown)", len(d.Rows))
		}
		label += fmt.Sprintf(", of %s Strings", o.cell(count, d.Strings, false))
		g.footer = []any{"", nil, d.WastedBytes, label}
	}
	return o.render(w, g)
}

// shortValue quotes a String value for a table, cut to stringCells
// characters.
func shortValue(s string) string {
	if utf8.RuneCountInString(s) <= stringCells {
		return strconv.Quote(s)
	}
	return strconv.Quote(string([]rune(s)[:stringCells])) + "…"
}
