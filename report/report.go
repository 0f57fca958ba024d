// Package report renders analysis results for people (tables with
// human-readable sizes) and for scripts (JSON and CSV with exact numbers).
// It formats and never computes: every share, total and roll-up it shows
// is a field or a method of the analysis result.
//
// Each report (Histogram, Dominators, CPU, ...) wraps its result in a
// Document, which writes itself as a table, as CSV and as JSON, and hands
// it to Generate, the one place that picks the method by the output
// format.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format.
type Format string

// The output formats every command offers, and Pprof, which only a CPU
// profile offers.
const (
	Table Format = "table"
	JSON  Format = "json"
	CSV   Format = "csv"
	// Pprof is a gzipped profile.proto (go tool pprof).
	Pprof Format = "pprof"
)

// ParseFormat checks an -o/--output value: table, json, csv, or one of
// also, the formats a command offers beyond them.
func ParseFormat(s string, also ...Format) (Format, error) {
	switch f := Format(s); f {
	case Table, JSON, CSV:
		return f, nil
	default:
		if slices.Contains(also, f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown output format %q: expected table, json or csv", s)
}

// Options control rendering.
type Options struct {
	Format Format
	// ExactBytes prints byte counts as plain numbers in tables.
	ExactBytes bool
	// Width, above 0, is the terminal width tables fit in: their text
	// columns are cut in the middle, their numbers kept whole (fit). 0
	// leaves tables as wide as their cells.
	Width int
}

// Document is a result ready to be written in every output format. Each
// report of this package is one; Generate picks the format, so a new
// report is a new Document and a new format a new method of it.
type Document interface {
	// Table writes the document for people: sizes made readable, the
	// rows in a table with its totals, the details below it.
	Table(w io.Writer, o Options) error
	// CSV writes the rows for scripts, with exact numbers.
	CSV(w io.Writer, o Options) error
	// JSON writes the whole result for scripts.
	JSON(w io.Writer) error
}

// ProfileDocument is a Document that can also be written as a gzipped
// profile.proto (Pprof).
type ProfileDocument interface {
	Document
	Pprof(w io.Writer) error
}

// Generate writes d in the format o asks for: the one place that
// dispatches on the output format.
func Generate(w io.Writer, d Document, o Options) error {
	switch o.Format {
	case JSON:
		return d.JSON(w)
	case CSV:
		return d.CSV(w, o)
	case Pprof:
		p, ok := d.(ProfileDocument)
		if !ok {
			return fmt.Errorf("output format %q: only a CPU profile is written as a profile.proto", o.Format)
		}
		return p.Pprof(w)
	}
	return d.Table(w, o)
}

// kind says how a column's values are printed.
type kind int

const (
	text kind = iota
	// ident is text that names one thing, an object id: never cut to
	// fit a table in the terminal.
	ident
	count
	bytes
	percent
	// ratio is a fraction: a percentage in tables, the fraction itself
	// in CSV.
	ratio
	// countDelta and bytesDelta are signed changes: printed with their
	// sign in tables.
	countDelta
	bytesDelta
)

// column is one column of a grid: its title in tables, how its values
// print, and its key: the CSV header and the JSON key of the same value,
// named in docs/vocabulary.md. A column without a key (the rank "#") is
// only for people: CSV leaves it out.
type column struct {
	title string
	kind  kind
	key   string
}

// grid is a table of values: strings for text columns, int64 for counts
// and bytes, float64 for percentages.
type grid struct {
	columns []column
	rows    [][]any
	footer  []any
	// none is the line a table without rows prints instead of its
	// header and borders, worded for the command ("no class with objects
	// matches"); "none" when empty. CSV prints its header alone.
	none string
}

func (o Options) cell(k kind, v any, forCSV bool) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		if (k == countDelta || k == bytesDelta) && !forCSV {
			unsigned := count
			if k == bytesDelta {
				unsigned = bytes
			}
			return signed(x, o.cell(unsigned, abs(x), false))
		}
		if k == bytes && !forCSV && !o.ExactBytes {
			return humanize.IBytes(uint64(max(x, 0)))
		}
		if forCSV || k != count {
			return strconv.FormatInt(x, 10)
		}
		return humanize.Comma(x)
	case int:
		return o.cell(k, int64(x), forCSV)
	case float64:
		if forCSV {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		if k == ratio {
			x *= 100
		}
		return strconv.FormatFloat(x, 'f', 2, 64) + "%"
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// writeCSV writes g as CSV: a header of the columns' keys and the rows,
// without a footer and without the columns that have no key; a grid
// without rows is its header alone.
func (o Options) writeCSV(w io.Writer, g grid) error {
	cw := csv.NewWriter(w)
	var head []string
	for _, c := range g.columns {
		if c.key != "" {
			head = append(head, c.key)
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range g.rows {
		rec := make([]string, 0, len(head))
		for i, v := range r {
			if g.columns[i].key != "" {
				rec = append(rec, o.cell(g.columns[i].kind, v, true))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeRowsJSON writes g's rows as a JSON array of objects, each value
// under its column's key in column order, numbers as numbers; the
// columns without a key are left out, as in CSV. It is the JSON of a
// report whose rows are flat, so that its keys are its CSV header.
func writeRowsJSON(w io.Writer, g grid) error {
	rows := make([]orderedObject, 0, len(g.rows))
	for _, r := range g.rows {
		var obj orderedObject
		for i, v := range r {
			if c := g.columns[i]; c.key != "" {
				obj = append(obj, keyValue{c.key, v})
			}
		}
		rows = append(rows, obj)
	}
	return writeJSON(w, rows)
}

// keyValue is one member of an orderedObject.
type keyValue struct {
	key   string
	value any
}

// orderedObject is a JSON object whose members keep their order.
type orderedObject []keyValue

// MarshalJSON writes the members in order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		var v strings.Builder
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.value); err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), strings.TrimSuffix(v.String(), "\n")...)
	}
	return append(b, '}'), nil
}

// writeTable writes g as a table with its footer; a grid without rows is
// the line g.none.
func (o Options) writeTable(w io.Writer, g grid) error {
	if len(g.rows) == 0 {
		none := g.none
		if none == "" {
			none = "none"
		}
		_, err := fmt.Fprintln(w, none)
		return err
	}
	align := make([]tw.Align, len(g.columns))
	head := make([]string, len(g.columns))
	for i, c := range g.columns {
		head[i] = c.title
		align[i] = tw.AlignRight
		if c.kind == text || c.kind == ident {
			align[i] = tw.AlignLeft
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithFooterAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	rows := make([][]string, len(g.rows))
	for k, r := range g.rows {
		rows[k] = make([]string, len(r))
		for i, v := range r {
			rows[k][i] = o.cell(g.columns[i].kind, v, false)
		}
	}
	var footer []string
	if g.footer != nil {
		footer = make([]string, len(g.footer))
		for i, v := range g.footer {
			footer[i] = o.cell(g.columns[i].kind, v, false)
		}
	}
	fit(g.columns, head, rows, footer, o.Width)
	t.Header(head)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if footer != nil {
		t.Footer(footer)
	}
	return t.Render()
}

// signed prefixes the printed magnitude of x with its sign (none for 0).
func signed(x int64, magnitude string) string {
	switch {
	case x > 0:
		return "+" + magnitude
	case x < 0:
		return "-" + magnitude
	}
	return magnitude
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func itoa(n int) string { return strconv.Itoa(n) }
