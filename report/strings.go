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
	return Generate(w, duplicateStrings{d}, o)
}

// duplicateStrings is a duplicate String report as a Document.
type duplicateStrings struct{ heap.DuplicateStringReport }

// JSON writes the rows.
func (d duplicateStrings) JSON(w io.Writer) error { return writeJSON(w, nonNil(d.Rows)) }

// CSV writes the rows, each value whole.
func (d duplicateStrings) CSV(w io.Writer, o Options) error {
	return o.writeCSV(w, d.grid(func(s string) string { return s }))
}

// Table writes the rows, values quoted and cut short, and the total of
// all groups.
func (d duplicateStrings) Table(w io.Writer, o Options) error {
	g := d.grid(shortValue)
	label := fmt.Sprintf("all %d duplicated values", d.Groups)
	if len(d.Rows) < d.Groups {
		label += fmt.Sprintf(" (%d shown)", len(d.Rows))
	}
	label += fmt.Sprintf(", of %s Strings", o.cell(count, d.Strings, false))
	g.footer = []any{"", nil, d.WastedBytes, label}
	return o.writeTable(w, g)
}

// grid is the rows, each value as value shows it.
func (d duplicateStrings) grid(value func(string) string) grid {
	g := grid{columns: []column{{"#", count, ""}, {"count", count, "count"}, {"wasted bytes", bytes, "wasted_bytes"}, {"value", text, "value"}},
		none: "no String value is held by enough Strings"}
	for i, r := range d.Rows {
		g.rows = append(g.rows, []any{i + 1, r.Count, r.WastedBytes, value(r.Value)})
	}
	return g
}

// shortValue quotes a String value for a table, cut to stringCells
// characters.
func shortValue(s string) string {
	if utf8.RuneCountInString(s) <= stringCells {
		return strconv.Quote(s)
	}
	return strconv.Quote(string([]rune(s)[:stringCells])) + "…"
}
