package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

// Info renders a dump summary: JSON is the Info object; a table lists the
// summary, then the roots, records and anomalies; CSV has one
// section,name,value row per number, names without the table's indent.
func Info(w io.Writer, in heap.Info, o Options) error {
	return Generate(w, info{in}, o)
}

// info is a dump summary as a Document.
type info struct{ heap.Info }

// JSON writes the summary.
func (in info) JSON(w io.Writer) error {
	out := in.Info
	out.Notes = nonNil(out.Notes)
	return writeJSON(w, out)
}

// summary is the name and value of each line of the summary.
func (in info) summary() [][]any {
	summary := [][]any{
		{"file", in.File},
		{"format", fmt.Sprintf("%s %s", in.Format, in.Version)},
		{"producer", in.Producer},
		{"compression", in.Compression},
		{"id size", int64(in.IDSize)},
		{"timestamp", timestamp(in.Timestamp)},
		{"bytes read", in.BytesRead},
	}
	if in.LinesRead > 0 {
		summary = append(summary, []any{"lines read", in.LinesRead})
	}
	summary = append(summary, [][]any{
		{"heap dumps", heapDumps(in.Info)},
		{"objects", in.Objects},
		{"  instances", in.Instances},
		{"  arrays", in.Arrays},
		{"  class objects", in.ClassObjects},
		{"classes", int64(in.Classes)},
		{"references", in.References},
		{"gc roots", in.GCRootsTotal},
		{"threads", int64(in.Threads)},
		{"stack traces", int64(in.Traces)},
		{"shallow heap", in.ShallowBytes},
	}...)
	if in.NativeAllocations > 0 {
		summary = append(summary, []any{"native (registered)", in.NativeBytes}, []any{"  allocations", in.NativeAllocations})
	}
	summary = append(summary, jvmSummary(in.JVM)...)
	return append(summary, [][]any{
		{"layout", in.Layout},
		{"layout from", in.LayoutReason},
		{"truncated", fmt.Sprint(in.Truncated)},
	}...)
}

// CSV writes the summary, the roots, records and sub-records, the heaps
// and the anomalies as section,name,value rows.
func (in info) CSV(w io.Writer, o Options) error {
	g := grid{columns: []column{{"section", text}, {"name", text}, {"value", text}}}
	for _, r := range in.summary() {
		g.rows = append(g.rows, []any{"summary", strings.TrimSpace(r[0].(string)), o.cell(count, r[1], true)})
	}
	for _, sec := range []struct {
		name string
		m    map[string]int64
	}{{"gc_roots", in.GCRoots}, {"records", in.Records}, {"sub_records", in.SubRecords}} {
		for _, k := range sortedKeys(sec.m) {
			g.rows = append(g.rows, []any{sec.name, k, o.cell(count, sec.m[k], true)})
		}
	}
	for _, hp := range in.Heaps {
		for _, v := range []struct {
			name string
			n    int64
		}{{"objects", hp.Objects}, {"class objects", hp.ClassObjects}, {"shallow bytes", hp.ShallowBytes}, {"native bytes", hp.NativeBytes}} {
			if v.name == "native bytes" && in.NativeAllocations == 0 {
				continue
			}
			g.rows = append(g.rows, []any{"heaps", hp.Name + " " + v.name, o.cell(count, v.n, true)})
		}
	}
	if in.JVM != nil {
		for _, p := range in.JVM.Properties {
			g.rows = append(g.rows, []any{"system_properties", p.Key, p.Value})
		}
	}
	for _, a := range in.Anomalies {
		g.rows = append(g.rows, []any{"anomalies", a.Kind, fmt.Sprintf("%d: %s", a.Count, a.Detail)})
	}
	for _, a := range in.Notes {
		g.rows = append(g.rows, []any{"notes", a.Kind, fmt.Sprintf("%d: %s", a.Count, a.Detail)})
	}
	return o.writeCSV(w, g)
}

// Table writes the summary, the heaps, the roots, records and
// sub-records, and the anomalies, one table each.
func (in info) Table(w io.Writer, o Options) error {
	g := grid{columns: []column{{"dump", text}, {"", text}}}
	for _, r := range in.summary() {
		v := r[1]
		if n, ok := v.(int64); ok {
			k := count
			if r[0] == "shallow heap" || r[0] == "bytes read" || r[0] == "native (registered)" {
				k = bytes
			}
			v = o.cell(k, n, false)
		}
		g.rows = append(g.rows, []any{r[0], v})
	}
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	if len(in.Heaps) > 0 {
		if err := o.writeTable(w, in.heaps()); err != nil {
			return err
		}
	}
	if in.JVM != nil && len(in.JVM.Properties) > 0 {
		g := grid{columns: []column{{"system property", text}, {"value", text}}}
		for _, p := range in.JVM.Properties {
			g.rows = append(g.rows, []any{printable(p.Key), printable(p.Value)})
		}
		if err := o.writeTable(w, g); err != nil {
			return err
		}
	}
	for _, sec := range []struct {
		title string
		m     map[string]int64
	}{{"gc roots", in.GCRoots}, {"records", in.Records}, {"heap sub-records", in.SubRecords}} {
		if len(sec.m) == 0 {
			continue
		}
		g := grid{columns: []column{{sec.title, text}, {"count", count}}}
		for _, k := range sortedKeys(sec.m) {
			g.rows = append(g.rows, []any{k, sec.m[k]})
		}
		if err := o.writeTable(w, g); err != nil {
			return err
		}
	}
	g = grid{columns: []column{{"anomaly", text}, {"count", count}, {"first at", text}, {"detail", text}}, none: "no anomalies found"}
	for _, a := range in.Anomalies {
		g.rows = append(g.rows, []any{a.Kind, a.Count, anomalyPlace(a), a.Detail})
	}
	if err := o.writeTable(w, g); err != nil || len(in.Notes) == 0 {
		return err
	}
	g = grid{columns: []column{{"note (routine, no anomaly)", text}, {"count", count}, {"detail", text}}}
	for _, a := range in.Notes {
		g.rows = append(g.rows, []any{a.Kind, a.Count, a.Detail})
	}
	return o.writeTable(w, g)
}

// heaps is the table of an Android dump's heaps.
func (in info) heaps() grid {
	g := grid{columns: []column{{"heap", text}, {"objects", count}, {"class objects", count}, {"shallow heap", bytes}}}
	if in.NativeAllocations > 0 {
		g.columns = append(g.columns, column{"native (registered)", bytes})
	}
	for _, hp := range in.Heaps {
		row := []any{hp.Name, hp.Objects, hp.ClassObjects, hp.ShallowBytes}
		if in.NativeAllocations > 0 {
			row = append(row, hp.NativeBytes)
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// heapDumps says how many heap dumps the file holds and which was loaded.
func heapDumps(in heap.Info) string {
	if in.Dumps == 0 {
		return "none"
	}
	return fmt.Sprintf("%d (loaded #%d)", in.Dumps, in.Dump)
}

// timestamp formats the time a dump was written, "unknown" when it does
// not say.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.Format(time.RFC3339Nano)
}

// anomalyPlace says where an anomaly was first met: "offset N", "line N",
// or nothing when it is tied to no place.
func anomalyPlace(a model.Anomaly) string {
	switch {
	case a.Line > 0:
		return fmt.Sprintf("line %d", a.Line)
	case a.Offset >= 0:
		return fmt.Sprintf("offset %d", a.Offset)
	}
	return ""
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jvmSummary is the summary's lines on the JVM that wrote the dump: the
// thread that threw an OutOfMemoryError first, then its version, command
// line and home; none for what the dump does not tell.
func jvmSummary(j *heap.JVMInfo) [][]any {
	if j == nil {
		return nil
	}
	var lines [][]any
	if j.OOMThread != "" {
		oom := fmt.Sprintf("thrown in thread %q", j.OOMThread)
		if j.OOMFrame != "" {
			oom += " at " + printable(j.OOMFrame)
		}
		lines = append(lines, []any{"OutOfMemoryError", oom})
	}
	for _, l := range []struct{ name, value string }{{"java", j.Version}, {"vm", j.VM}, {"command", j.Command}, {"java home", j.Home}} {
		if l.value != "" {
			lines = append(lines, []any{l.name, printable(l.value)})
		}
	}
	return lines
}

// printable is a text from the dump as a terminal may show it: quoted,
// with its control characters escaped, when it has any.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
