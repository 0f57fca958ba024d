// Package report renders analysis results for people (tables with
// human-readable sizes) and for scripts (JSON and CSV with exact numbers).
// It formats and never computes.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/dustin/go-humanize"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format.
type Format string

// The output formats every command offers.
const (
	Table Format = "table"
	JSON  Format = "json"
	CSV   Format = "csv"
)

// ParseFormat checks an -o/--output value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, JSON, CSV:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q: expected table, json or csv", s)
}

// Options control rendering.
type Options struct {
	Format Format
	// ExactBytes prints byte counts as plain numbers in tables.
	ExactBytes bool
}

// kind says how a column's values are printed.
type kind int

const (
	text kind = iota
	count
	bytes
	percent
	// countDelta and bytesDelta are signed changes: printed with their
	// sign in tables.
	countDelta
	bytesDelta
)

type column struct {
	title string
	kind  kind
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
		return strconv.FormatFloat(x, 'f', 2, 64) + "%"
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// render writes g as a table or as CSV; a table without rows is the line
// g.none.
func (o Options) render(w io.Writer, g grid) error {
	if o.Format == CSV {
		cw := csv.NewWriter(w)
		head := make([]string, len(g.columns))
		for i, c := range g.columns {
			head[i] = c.title
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		for _, r := range g.rows {
			rec := make([]string, len(r))
			for i, v := range r {
				rec[i] = o.cell(g.columns[i].kind, v, true)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
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
		if c.kind == text {
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
	t.Header(head)
	for _, r := range g.rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = o.cell(g.columns[i].kind, v, false)
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	if g.footer != nil {
		cells := make([]string, len(g.footer))
		for i, v := range g.footer {
			cells[i] = o.cell(g.columns[i].kind, v, false)
		}
		t.Footer(cells)
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
