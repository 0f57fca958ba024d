package report

import (
	"io"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// TestNativeColumnsGolden renders the native sizes of an Android dump
// beside the Java sizes: a native bytes column in the histogram, a
// retained native column in the dominator table (rows, dominated objects
// and the total), and native_bytes / retained_native_bytes in JSON only
// where they are not 0.
func TestNativeColumnsGolden(t *testing.T) {
	h := heap.Histo{Native: true, MatchedClasses: 2,
		Rows: []heap.HistoRow{
			{Class: "android.graphics.Bitmap", Instances: 2, ShallowBytes: 96, NativeBytes: 8_000_064},
			{Class: "java.lang.String", Instances: 10, ShallowBytes: 240},
		},
		Total: heap.HistoRow{Instances: 12, ShallowBytes: 336, NativeBytes: 8_000_064}}
	out := renderGolden(t, "histo-native", allVariants, func(w io.Writer, o Options) error { return Histogram(w, h, o) })
	wantContains(t, "table", out["table"], "native bytes", "7.6 MiB")
	wantContains(t, "json", out["json"], `"native_bytes": 8000064`)
	recs := readCSV(t, out["csv"])
	if got := recs[0]; len(got) != 4 || got[2] != "native_bytes" {
		t.Errorf("CSV header %q, want the native bytes column fourth", got)
	}
	var back []heap.HistoRow
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || !reflect.DeepEqual(back, h.Rows) {
		t.Errorf("JSON decodes to %+v, want %+v", back, h.Rows)
	}

	d := heap.DominatorReport{Native: true, Selected: 1, ReachableObjects: 3, ReachableBytes: 200, ReachableNativeBytes: 4_000_032,
		Rows: []heap.DominatorRow{{ObjectID: "0x10", Class: "com.example.Gallery", ShallowBytes: 24, RetainedBytes: 120,
			RetainedObjects: 2, RetainedNativeBytes: 4_000_032, ImmediateDominator: "root", DominatedCount: 1,
			Dominated: []heap.DominatedObject{{ObjectID: "0x20", Class: "android.graphics.Bitmap", RetainedBytes: 96, RetainedNativeBytes: 4_000_032}}}}}
	out = renderGolden(t, "dominators-native", allVariants, func(w io.Writer, o Options) error { return Dominators(w, d, o) })
	wantContains(t, "table", out["table"], "retained native", "3.8 MiB")
	wantContains(t, "json", out["json"], `"retained_native_bytes": 4000032`)
}
