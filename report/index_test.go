package report

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestIndexGolden(t *testing.T) {
	s := IndexSummary{
		Dump: "heap.hprof", Index: "heap.hprof.hprofctl-index", Built: true, Seconds: 48.4,
		IndexBytes: 2232708928, DumpBytes: 2285165898, Objects: 40142234, References: 64406545, Classes: 691,
	}
	out := renderGolden(t, "index", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error {
		return Index(w, s, o)
	})
	wantLines(t, "csv", out["csv"], "",
		"name,value",
		"dump,heap.hprof",
		"index,heap.hprof.hprofctl-index",
		"built,true",
		"seconds,48.4",
		"index_bytes,2232708928",
		"dump_bytes,2285165898",
		"objects,40142234",
		"references,64406545",
		"classes,691")
}

func TestIndexNotes(t *testing.T) {
	for _, c := range []struct {
		note IndexNote
		want string
	}{
		{IndexNote{Dump: "d", Index: "d.idx", Took: 3 * time.Second}, ""},
		{IndexNote{Dump: "d", Index: "d.idx", Built: true, Took: 1500 * time.Millisecond}, "hprofctl: indexed d in 1.5 s: d.idx\n"},
		{IndexNote{Dump: "d", Index: "d.idx", Built: true, Took: 20 * time.Millisecond, Rebuilt: "it is stale"},
			"hprofctl: the index was not used: it is stale\nhprofctl: indexed d in 20 ms: d.idx\n"},
		{IndexNote{Dump: "d", Built: true, Took: 2 * time.Second, Unsaved: "read-only"},
			"hprofctl: warning: d analysed in memory in 2.0 s; its index could not be written: read-only\n"},
		{IndexNote{Dump: "d", Index: "d.idx", Built: true, Took: 2 * time.Second, OverBudget: "1 GiB stayed in memory"},
			"hprofctl: warning: 1 GiB stayed in memory\nhprofctl: indexed d in 2.0 s: d.idx\n"},
	} {
		var b strings.Builder
		IndexNotes(&b, c.note)
		if b.String() != c.want {
			t.Errorf("%+v: wrote %q, want %q", c.note, b.String(), c.want)
		}
	}
}
