package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestLeaksGolden(t *testing.T) {
	l := heap.LeakReport{
		TotalBytes: 7 << 30, Threshold: 0.1,
		Suspects: []heap.LeakSuspect{
			{Class: "java.util.HashMap", ObjectID: "0x7a1b2c3d8", RetainedBytes: sixGiB, Percent: 85.71428571428571,
				AccumulationPoint: &heap.AccumulationPoint{ObjectID: "0x7a1b2c408", Class: "java.util.HashMap$Node[]", RetainedBytes: sixGiB - 48, Percent: 85.71},
				BiggestClasses: []heap.LeakClass{
					{Class: "java.util.HashMap$Node", Objects: 1_000_000, RetainedBytes: sixGiB - 48 - 4096, Percent: 85.7},
					{Class: weirdClass, Objects: 1, RetainedBytes: 4096, Percent: 0.000053},
				},
				Path: []heap.PathStep{
					{ObjectID: "0x7a0000000", Class: "fixture.Registry"},
					{ObjectID: "0x7a1b2c3d8", Class: "java.util.HashMap", Via: "static MAP"},
					{ObjectID: "0x7a1b2c408", Class: "java.util.HashMap$Node[]", Via: "table"},
				},
				RootKind: "sticky-class"},
			{Class: "com.exämple.Größe", Instances: 12_345, RetainedBytes: 1 << 30, Percent: 14.285714285714286,
				BiggestClasses: []heap.LeakClass{{Class: "com.exämple.Größe", Objects: 12_345, RetainedBytes: 1 << 30, Percent: 14.29}},
				Path:           []heap.PathStep{{ObjectID: "0x7b0000000", Class: "com.exämple.Größe"}},
				RootKind:       "java-frame", RootThread: "main", RootFrame: "app.Main.main(Main.java:7)"},
			{Class: "fixture.WeakOnly", ObjectID: "0x7c0000000", RetainedBytes: 800 << 20, Percent: 11.160714285714286,
				BiggestClasses: []heap.LeakClass{}, Path: []heap.PathStep{}},
		},
	}
	out := renderGolden(t, "leaks", allVariants, func(w io.Writer, o Options) error { return Leaks(w, l, o) })
	wantLines(t, "table", out["table"],
		"Leak suspects: retaining more than 10.00% of the reachable heap (7.0 GiB)",
		"Suspect 1, java.util.HashMap: biggest classes of the objects its accumulation point immediately dominates",
		"Suspect 1: shortest path from a GC root to the accumulation point, through the suspect",
		"Suspect 2, com.exämple.Größe: biggest classes of the objects its instances immediately dominate",
		"Suspect 2: shortest path from a GC root to an instance",
		"none: there are no objects it immediately dominates",
		"Suspect 3: no path from a GC root (unreachable)")
	wantContains(t, "table", out["table"], "85.71%", "14.29%", "12,345 instances", "0.00%")
	wantLines(t, "table --bytes", out["bytes"], "Leak suspects: retaining more than 10.00% of the reachable heap (7516192768)")
	recs := readCSV(t, out["csv"])
	if len(recs) != 4 {
		t.Fatalf("CSV has %d records, want the header and one per suspect:\n%s", len(recs), out["csv"])
	}
	if got := strings.Join(recs[0], ","); got != "retained_bytes,percent,object_id,instances,class,label,accumulation_point_object_id,accumulation_point_class,accumulation_point_retained_bytes" {
		t.Errorf("CSV header %q", got)
	}
	if recs[1][0] != "6442451067" || recs[1][1] != "85.71428571428571" || recs[2][3] != "12345" || recs[3][8] != "" {
		t.Errorf("CSV %q", recs)
	}
	var back []heap.LeakSuspect
	decodeJSON(t, out["json"], &back)
	if len(back) != 3 || back[0].AccumulationPoint == nil || back[0].AccumulationPoint.ObjectID != "0x7a1b2c408" || back[1].Instances != 12_345 || back[2].AccumulationPoint != nil {
		t.Errorf("JSON decodes to %+v", back)
	}
}

func TestLeaksNoneGolden(t *testing.T) {
	l := heap.LeakReport{TotalBytes: 745 << 10, Threshold: 0.25, KeptUnreachable: true}
	out := renderGolden(t, "leaks-none", allVariants, func(w io.Writer, o Options) error { return Leaks(w, l, o) })
	wantLines(t, "table", out["table"], "No leak suspect: no object or class retains more than 25.00% of the heap, unreachable objects included (745 KiB).")
	if out["json"] != "[]\n" {
		t.Errorf("JSON %q, want []", out["json"])
	}
}
