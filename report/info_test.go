package report

import (
	"io"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

func TestInfoGolden(t *testing.T) {
	in := heap.Info{
		File: "/dumps/séance,1.hprof.gz", Format: "hprof", Version: "1.0.2", IDSize: 8,
		Timestamp:   time.Date(2026, 4, 21, 9, 30, 15, 250_000_000, time.UTC),
		Compression: "gzip", Producer: "hotspot", BytesRead: 5<<30 + 7, Dumps: 2, Dump: 1,
		Records:    map[string]int64{"UTF8": 21_962, "LOAD_CLASS": 762, "HEAP_DUMP_SEGMENT": 3},
		SubRecords: map[string]int64{"INSTANCE_DUMP": 10_097, "CLASS_DUMP": 663},
		Objects:    10_760, Instances: 10_088, Arrays: 4, ClassObjects: 668, Classes: 663,
		References: 27_222, GCRoots: map[string]int64{"thread-object": 8, "java-frame": 26},
		GCRootsTotal: 34, Threads: 8, Traces: 9, ShallowBytes: sixGiB,
		Layout: "64-bit, 12-byte header, 4-byte refs, 8-byte alignment", LayoutReason: "from the class sizes",
		Truncated: true,
		Anomalies: []model.Anomaly{
			{Kind: "truncated", Count: 1, Offset: 2_097_152, Detail: "the file ends inside a HEAP_DUMP_SEGMENT"},
			{Kind: "dangling-reference", Count: 12, Offset: -1, Detail: "references to objects not in the dump, e.g. 0x7a1b2c3d8"},
		},
	}
	out := renderGolden(t, "info", allVariants, func(w io.Writer, o Options) error { return Info(w, in, o) })
	wantContains(t, "table", out["table"], "5.0 GiB", "6.0 GiB", "2026-04-21T09:30:15.25Z", "2 (loaded #1)", "21,962", "2097152")
	wantContains(t, "table --bytes", out["bytes"], "5368709127", "6442451067")
	recs := readCSV(t, out["csv"])
	want := map[[2]string]string{
		{"summary", "bytes_read"}: "5368709127", {"summary", "instances"}: "10088", {"summary", "file"}: "/dumps/séance,1.hprof.gz",
		{"gc_roots", "java_frame"}: "26", {"records", "utf8"}: "21962", {"sub_records", "class_dump"}: "663",
		{"anomalies", "dangling-reference"}: "12: references to objects not in the dump, e.g. 0x7a1b2c3d8",
	}
	for _, r := range recs[1:] {
		if v, ok := want[[2]string{r[0], r[1]}]; ok {
			if r[2] != v {
				t.Errorf("CSV %s,%s = %q, want %q", r[0], r[1], r[2], v)
			}
			delete(want, [2]string{r[0], r[1]})
		}
	}
	if len(want) > 0 {
		t.Errorf("CSV lacks %v:\n%s", want, out["csv"])
	}
	var back heap.Info
	decodeJSON(t, out["json"], &back)
	if back.BytesRead != in.BytesRead || back.GCRoots["java_frame"] != 26 || len(back.Anomalies) != 2 || !back.Timestamp.Equal(in.Timestamp) {
		t.Errorf("JSON decodes to %+v", back)
	}
}

// TestInfoBareGolden renders a dump with no records, roots or anomalies
// (a bare JVMPI buffer reads so).
func TestInfoBareGolden(t *testing.T) {
	in := heap.Info{File: "heap.bin", Format: "jvmpi-heap", Version: "level 0", IDSize: 4,
		Records: map[string]int64{}, SubRecords: map[string]int64{}, GCRoots: map[string]int64{}, Anomalies: []model.Anomaly{}}
	out := renderGolden(t, "info-bare", allVariants, func(w io.Writer, o Options) error { return Info(w, in, o) })
	wantLines(t, "table", out["table"], "no anomalies found")
	var back map[string]any
	decodeJSON(t, out["json"], &back)
	if a, ok := back["anomalies"].([]any); !ok || len(a) != 0 {
		t.Errorf("JSON anomalies %v, want []", back["anomalies"])
	}
}

// TestInfoASCIIGolden renders the summary of a line-oriented file: lines
// read beside bytes, and anomalies placed by line.
func TestInfoASCIIGolden(t *testing.T) {
	in := heap.Info{File: "java.hprof.txt", Format: "hprof-ascii", Version: "1.0.1", IDSize: 8,
		Producer: "hprof-agent", BytesRead: 30_000, LinesRead: 622, Dumps: 1, Truncated: true,
		Records: map[string]int64{}, SubRecords: map[string]int64{}, GCRoots: map[string]int64{},
		Anomalies: []model.Anomaly{
			{Kind: "truncated", Count: 1, Offset: -1, Line: 622, Detail: "the dump is truncated at line 622: the file ends inside this line (no line end); 622 lines (30000 bytes) were read before the cut"},
			{Kind: "reader-warning", Count: 1, Offset: -1, Line: 17, Detail: "unreadable line outside any section"},
		}}
	out := renderGolden(t, "info-ascii", allVariants, func(w io.Writer, o Options) error { return Info(w, in, o) })
	wantContains(t, "table", out["table"], "lines read", "622", "line 622", "line 17")
	var back heap.Info
	decodeJSON(t, out["json"], &back)
	if back.LinesRead != 622 || len(back.Anomalies) != 2 || back.Anomalies[1].Line != 17 {
		t.Errorf("JSON decodes to %+v", back)
	}
}

// TestInfoHeapsGolden renders an Android dump's summary: a table of its
// heaps after the summary, heap rows in CSV and a heaps list in JSON.
func TestInfoHeapsGolden(t *testing.T) {
	in := heap.Info{File: "app.hprof", Format: "hprof", Version: "1.0.3", IDSize: 4, Producer: "android",
		Records: map[string]int64{}, SubRecords: map[string]int64{}, GCRoots: map[string]int64{}, Anomalies: []model.Anomaly{},
		Objects: 43_852, Heaps: []heap.HeapSummary{
			{Name: "zygote", Objects: 40_995, ClassObjects: 3_000, ShallowBytes: 3 << 20},
			{Name: "app", Objects: 2_857, ClassObjects: 120, ShallowBytes: 250_000},
		}}
	out := renderGolden(t, "info-heaps", allVariants, func(w io.Writer, o Options) error { return Info(w, in, o) })
	wantContains(t, "table", out["table"], "zygote", "40,995", "3.0 MiB")
	wantContains(t, "csv", out["csv"], "heaps,app_objects,2857", "heaps,zygote_shallow_bytes,3145728")
	var back heap.Info
	decodeJSON(t, out["json"], &back)
	if len(back.Heaps) != 2 || back.Heaps[1] != in.Heaps[1] {
		t.Errorf("JSON heaps %+v", back.Heaps)
	}
}
