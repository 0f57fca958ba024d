package report

import (
	"fmt"
	"io"
	"sort"
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

// JSON writes the summary, the names of GC root kinds and of records in
// snake_case as every key.
func (in info) JSON(w io.Writer) error {
	return writeJSON(w, struct {
		heap.Info
		GCRoots    map[string]int64 `json:"gc_roots"`
		Records    map[string]int64 `json:"records"`
		SubRecords map[string]int64 `json:"sub_records"`
	}{in.Info, snakeKeys(in.GCRoots), snakeKeys(in.Records), snakeKeys(in.SubRecords)})
}

// snakeKey is a name of the dump's vocabulary (a GC root kind such as
// "java-frame", a record such as "HEAP_DUMP_SEGMENT") as a snake_case
// key: lower case, words joined by "_".
func snakeKey(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return '_'
		}
		return unicode.ToLower(r)
	}, name)
}

// snakeKeys is m with its keys in snake_case; nil stays nil.
func snakeKeys(m map[string]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[snakeKey(k)] += v
	}
	return out
}

// summary is the title, value and key (the name in JSON and CSV) of
// each line of the summary.
func (in info) summary() [][]any {
	summary := [][]any{
		{"file", in.File, "file"},
		{"format", fmt.Sprintf("%s %s", in.Format, in.Version), "format"},
		{"producer", in.Producer, "producer"},
		{"compression", in.Compression, "compression"},
		{"id size", int64(in.IDSize), "id_size"},
		{"timestamp", timestamp(in.Timestamp), "timestamp"},
		{"bytes read", in.BytesRead, "bytes_read"},
	}
	if in.LinesRead > 0 {
		summary = append(summary, []any{"lines read", in.LinesRead, "lines_read"})
	}
	summary = append(summary, [][]any{
		{"heap dumps", heapDumps(in.Info), "heap_dumps"},
		{"objects", in.Objects, "objects"},
		{"  instances", in.Instances, "instances"},
		{"  arrays", in.Arrays, "arrays"},
		{"  class objects", in.ClassObjects, "class_objects"},
		{"classes", int64(in.Classes), "classes"},
		{"references", in.References, "references"},
		{"gc roots", in.GCRootsTotal, "gc_roots_total"},
		{"threads", int64(in.Threads), "threads"},
		{"stack traces", int64(in.Traces), "stack_traces"},
		{"shallow heap", in.ShallowBytes, "shallow_bytes"},
	}...)
	if in.NativeAllocations > 0 {
		summary = append(summary, []any{"native (registered)", in.NativeBytes, "native_bytes"}, []any{"  allocations", in.NativeAllocations, "native_allocations"})
	}
	return append(summary, [][]any{
		{"layout", in.Layout, "layout"},
		{"layout from", in.LayoutReason, "layout_reason"},
		{"truncated", fmt.Sprint(in.Truncated), "truncated"},
	}...)
}

// CSV writes the summary, the roots, records and sub-records, the heaps
// and the anomalies as section,name,value rows.
func (in info) CSV(w io.Writer, o Options) error {
	g := grid{columns: []column{{"section", text, "section"}, {"name", text, "name"}, {"value", text, "value"}}}
	for _, r := range in.summary() {
		g.rows = append(g.rows, []any{"summary", r[2], o.cell(count, r[1], true)})
	}
	for _, sec := range []struct {
		name string
		m    map[string]int64
	}{{"gc_roots", in.GCRoots}, {"records", in.Records}, {"sub_records", in.SubRecords}} {
		for _, k := range sortedKeys(sec.m) {
			g.rows = append(g.rows, []any{sec.name, snakeKey(k), o.cell(count, sec.m[k], true)})
		}
	}
	for _, hp := range in.Heaps {
		for _, v := range []struct {
			name string
			n    int64
		}{{"objects", hp.Objects}, {"class_objects", hp.ClassObjects}, {"shallow_bytes", hp.ShallowBytes}, {"native_bytes", hp.NativeBytes}} {
			if v.name == "native_bytes" && in.NativeAllocations == 0 {
				continue
			}
			g.rows = append(g.rows, []any{"heaps", snakeKey(hp.Name) + "_" + v.name, o.cell(count, v.n, true)})
		}
	}
	for _, a := range in.Anomalies {
		g.rows = append(g.rows, []any{"anomalies", a.Kind, fmt.Sprintf("%d: %s", a.Count, a.Detail)})
	}
	return o.writeCSV(w, g)
}

// Table writes the summary, the heaps, the roots, records and
// sub-records, and the anomalies, one table each.
func (in info) Table(w io.Writer, o Options) error {
	g := grid{columns: []column{{"dump", text, "dump"}, {"", text, ""}}}
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
	for _, sec := range []struct {
		title string
		m     map[string]int64
	}{{"gc roots", in.GCRoots}, {"records", in.Records}, {"heap sub-records", in.SubRecords}} {
		if len(sec.m) == 0 {
			continue
		}
		g := grid{columns: []column{{sec.title, text, "name"}, {"count", count, "count"}}}
		for _, k := range sortedKeys(sec.m) {
			g.rows = append(g.rows, []any{k, sec.m[k]})
		}
		if err := o.writeTable(w, g); err != nil {
			return err
		}
	}
	g = grid{columns: []column{{"anomaly", text, "anomaly"}, {"count", count, "count"}, {"first at", text, "offset"}, {"detail", text, "detail"}}, none: "no anomalies found"}
	for _, a := range in.Anomalies {
		g.rows = append(g.rows, []any{a.Kind, a.Count, anomalyPlace(a), a.Detail})
	}
	return o.writeTable(w, g)
}

// heaps is the table of an Android dump's heaps.
func (in info) heaps() grid {
	g := grid{columns: []column{{"heap", text, "heap"}, {"objects", count, "objects"}, {"class objects", count, "class_objects"}, {"shallow heap", bytes, "shallow_bytes"}}}
	if in.NativeAllocations > 0 {
		g.columns = append(g.columns, column{"native (registered)", bytes, "native_bytes"})
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
