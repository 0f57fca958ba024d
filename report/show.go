package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Show renders shown objects. JSON is the object itself when there is one,
// an array of them otherwise. A table shows each object's summary, then
// its fields, elements, referrers and path as tables of their own; CSV has
// one row per part (the object, a GC root, a field, an element, the
// count of references to it, a referrer, a path step).
func Show(w io.Writer, objs []heap.ShowObject, o Options) error {
	return Generate(w, shown(objs), o)
}

// shown is shown objects as a Document.
type shown []heap.ShowObject

// JSON writes the object, or the array of them.
func (objs shown) JSON(w io.Writer) error {
	if len(objs) == 1 {
		return writeJSON(w, objs[0])
	}
	return writeJSON(w, []heap.ShowObject(objs))
}

// CSV writes one row per part of each object.
func (objs shown) CSV(w io.Writer, o Options) error { return o.writeCSV(w, showCSV(objs)) }

// Table writes each object as tables, a blank line between objects.
func (objs shown) Table(w io.Writer, o Options) error {
	for k, s := range objs {
		if k > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := showTable(w, s, o); err != nil {
			return err
		}
	}
	return nil
}

// showTable writes one object as tables.
func showTable(w io.Writer, s heap.ShowObject, o Options) error {
	summary := grid{columns: []column{{"object", text, "object_id"}, {s.ObjectID, text, "value"}}}
	add := func(name string, value any, k kind) {
		summary.rows = append(summary.rows, []any{name, o.cell(k, value, false)})
	}
	add("class", s.Class, text)
	add("shallow", s.ShallowBytes, bytes)
	retained := o.cell(bytes, s.RetainedBytes, false)
	if !s.Reachable {
		retained += " (unreachable)"
	}
	add("retained", retained, text)
	if s.NativeBytes != 0 {
		add("native", s.NativeBytes, bytes)
	}
	if s.RetainedNativeBytes != 0 {
		add("retained native", s.RetainedNativeBytes, bytes)
	}
	if len(s.GCRoot) == 0 {
		add("gc root", "no", text)
	}
	for _, r := range s.GCRoot {
		add("gc root", rootText(r), text)
	}
	if s.Text != "" {
		add("text", strconv.Quote(s.Text), text)
	}
	if s.Length != nil {
		add("length", *s.Length, count)
	}
	if !s.Read {
		add("values", "unknown: the dump could not be read again", text)
	}
	if err := o.writeTable(w, summary); err != nil {
		return err
	}
	if len(s.Fields) > 0 {
		g := grid{columns: []column{{"field", text, "field"}, {"type", text, "type"}, {"value", text, "value"}, {"class", text, "class"}, {"text", text, "text"}}}
		for _, f := range s.Fields {
			name := f.Name
			if f.Static {
				name = "static " + name
			}
			g.rows = append(g.rows, []any{name, f.Type, valueText(f.Value), f.Class, quoted(f.Text)})
		}
		if err := o.writeTable(w, g); err != nil {
			return err
		}
	}
	if len(s.Elements) > 0 {
		g := grid{columns: []column{{"index", count, "index"}, {"value", text, "value"}, {"class", text, "class"}, {"text", text, "text"}}}
		for _, e := range s.Elements {
			g.rows = append(g.rows, []any{e.Index, valueText(e.Value), e.Class, quoted(e.Text)})
		}
		if err := o.writeTable(w, g); err != nil {
			return err
		}
		if s.Length != nil && int64(len(s.Elements)) < *s.Length {
			if _, err := fmt.Fprintf(w, "first %d of %s elements\n", len(s.Elements), o.cell(count, *s.Length, false)); err != nil {
				return err
			}
		}
	}
	if s.Referrers != nil {
		g := grid{columns: []column{{"referrer", ident, "referrer"}, {"class", text, "class"}, {"via", text, "via"}}, none: "no object references it"}
		for _, r := range s.Referrers {
			g.rows = append(g.rows, []any{r.ObjectID, r.Class, r.Via})
		}
		if err := o.writeTable(w, g); err != nil {
			return err
		}
		if s.ReferrersTotal != nil && int64(len(s.Referrers)) < *s.ReferrersTotal {
			if _, err := fmt.Fprintf(w, "first %d of %s references (--max-referrers)\n", len(s.Referrers), o.cell(count, *s.ReferrersTotal, false)); err != nil {
				return err
			}
		}
	}
	if s.Path != nil {
		return retainers{heap.Retainers{Paths: []heap.RetainerPath{*s.Path}, Targets: 1}}.Table(w, o)
	}
	return nil
}

// showCSV is the shown objects as one CSV table.
func showCSV(objs []heap.ShowObject) grid {
	g := grid{columns: []column{{"object", text, "object_id"}, {"part", text, "part"}, {"name", text, "name"}, {"type", text, "type"}, {"value", text, "value"}, {"class", text, "class"}, {"text", text, "text"}}}
	for _, s := range objs {
		row := func(part, name, typ string, value any, class, txt string) {
			g.rows = append(g.rows, []any{s.ObjectID, part, name, typ, value, class, txt})
		}
		length := ""
		if s.Length != nil {
			length = strconv.FormatInt(*s.Length, 10)
		}
		row("object", "", "", "", s.Class, s.Text)
		row("shallow_bytes", "", "", s.ShallowBytes, "", "")
		row("retained_bytes", "", "", s.RetainedBytes, "", "")
		if s.NativeBytes != 0 {
			row("native_bytes", "", "", s.NativeBytes, "", "")
		}
		if s.RetainedNativeBytes != 0 {
			row("retained_native_bytes", "", "", s.RetainedNativeBytes, "", "")
		}
		if length != "" {
			row("length", "", "", length, "", "")
		}
		for _, r := range s.GCRoot {
			row("gc_root", r.Kind, "", "", "", rootText(r))
		}
		for _, f := range s.Fields {
			part := "field"
			if f.Static {
				part = "static"
			}
			row(part, f.Name, f.Type, valueText(f.Value), f.Class, f.Text)
		}
		for _, e := range s.Elements {
			row("element", strconv.FormatInt(e.Index, 10), "", valueText(e.Value), e.Class, e.Text)
		}
		if s.ReferrersTotal != nil {
			row("referrers_total", "", "", *s.ReferrersTotal, "", "")
		}
		for _, r := range s.Referrers {
			row("referrer", r.Via, "", r.ObjectID, r.Class, "")
		}
		if s.Path != nil {
			for k, step := range s.Path.Chain {
				row("path", step.Via, "", step.ObjectID, step.Class, strconv.Itoa(k))
			}
		}
	}
	return g
}

// rootText describes a GC root: its kind, thread and frame.
func rootText(r heap.ShowRoot) string {
	parts := []string{r.Kind}
	if r.Thread != "" {
		parts = append(parts, "thread "+r.Thread)
	}
	switch {
	case r.Frame != "":
		parts = append(parts, "at "+r.Frame)
	case r.FrameDepth != nil:
		parts = append(parts, fmt.Sprintf("frame %d", *r.FrameDepth))
	}
	return strings.Join(parts, ", ")
}

// valueText is a field's or element's value as a table shows it: null
// for a null reference, a char in single quotes (a string of one
// character; ids and the floats JSON has no number for are longer).
// ValueText formats a field's or element's value as show's table does:
// null, a quoted character, a number, an id.
func ValueText(v any) string { return valueText(v) }

func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(x) == 1 {
			return strconv.QuoteRune([]rune(x)[0])
		}
		return x
	}
	return fmt.Sprint(v)
}

// quoted is a short text in double quotes, "" when there is none.
func quoted(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}
