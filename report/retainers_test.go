package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestRetainersGolden(t *testing.T) {
	r := heap.Retainers{
		Paths: []heap.RetainerPath{
			{RootKind: "sticky-class", Objects: 98, Chain: []heap.PathStep{
				{ObjectID: "0x7a0000000", Class: "fixture.Registry"},
				{ObjectID: "0x7a1b2c3d8", Class: "java.util.HashMap", Via: "static MAP"},
				{ObjectID: "0x7a1b2c408", Class: "java.util.HashMap$Node[]", Via: "table"},
				{ObjectID: "0x7a1b2c9f0", Class: "java.util.HashMap$Node", Via: "[17]"},
				{ObjectID: "0x7a1b2d000", Class: weirdClass, Via: "value"},
			}},
			{RootKind: "java-frame", RootThread: "fixture-holder «main»", RootFrame: "fixture.StackHolder.run(StackHolder.java:12)", Objects: 2,
				Chain: []heap.PathStep{
					{ObjectID: "0x7b0000000", Class: "fixture.StackOnly"},
					{ObjectID: "0x7b0000010", Class: weirdClass, Via: "?"},
				}},
		},
		Targets: 103, Unreached: 3, Merged: true,
	}
	out := renderGolden(t, "retainers", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Retainers(w, r, o) })
	wantLines(t, "table", out["table"], "3 of 103 targets have no path from a GC root (unreachable)")
	wantContains(t, "table", out["table"], "java-frame, thread fixture-holder «main», at fixture.StackHolder.run(StackHolder.java:12)", "→ static MAP")
	recs := readCSV(t, out["csv"])
	if len(recs) != 1+5+2 {
		t.Fatalf("CSV has %d records, want the header and one per step (7):\n%s", len(recs), out["csv"])
	}
	if strings.Join(recs[0], ",") != "path,objects,via,object_id,class,root" || recs[2][2] != "static MAP" || recs[5][4] != weirdClass || recs[7][0] != "2" {
		t.Errorf("CSV %q", recs)
	}
	var back heap.Retainers
	decodeJSON(t, out["json"], &back)
	if len(back.Paths) != 2 || back.Paths[0].Objects != 98 || back.Paths[1].RootThread != "fixture-holder «main»" || back.Unreached != 3 || !back.Merged {
		t.Errorf("JSON decodes to %+v", back)
	}

	one := heap.Retainers{Targets: 1, Paths: []heap.RetainerPath{{RootKind: "jni-global", Objects: 1, Chain: []heap.PathStep{
		{ObjectID: "0x7c0000000", Class: "java.lang.Object[]"}, {ObjectID: "0x7c0000100", Class: "fixture.Payload", Via: "[3]"}}}}}
	out = renderGolden(t, "retainers-object", []variant{asTable, asCSV}, func(w io.Writer, o Options) error { return Retainers(w, one, o) })
	if recs := readCSV(t, out["csv"]); recs[1][1] != "" {
		t.Errorf("--object paths are not merged, yet CSV objects is %q", recs[1][1])
	}
}

func TestRetainersEmptyGolden(t *testing.T) {
	r := heap.Retainers{Paths: []heap.RetainerPath{}, Targets: 4, Unreached: 4}
	out := renderGolden(t, "retainers-unreached", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Retainers(w, r, o) })
	if out["table"] != "no path from a GC root to any of the 4 targets (unreachable)\n" {
		t.Errorf("table %q, want the one line saying no path reaches the targets", out["table"])
	}
	if out["csv"] != "path,objects,via,object_id,class,root\n" {
		t.Errorf("CSV %q, want the header alone", out["csv"])
	}
	for _, c := range []struct {
		targets int64
		want    string
	}{
		{0, "no object matches\n"},
		{1, "no path from a GC root to the target (unreachable)\n"},
	} {
		var b strings.Builder
		if err := Retainers(&b, heap.Retainers{Paths: []heap.RetainerPath{}, Targets: c.targets, Unreached: c.targets}, Options{Format: Table}); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%d targets, no path: %q, want %q", c.targets, b.String(), c.want)
		}
	}
	var back heap.Retainers
	decodeJSON(t, out["json"], &back)
	if back.Paths == nil || len(back.Paths) != 0 || back.Targets != 4 {
		t.Errorf("JSON decodes to %+v, want no paths of 4 targets", back)
	}
}

// TestRetainersUnrecordedStackGolden renders java-frame roots of a dump
// that records the frame's depth but not the thread's stack, and names
// the thread that allocated the object or none (the hprof agent's): the
// thread as what it is, the depth, no method.
func TestRetainersUnrecordedStackGolden(t *testing.T) {
	depth, other := int32(2), int32(4)
	r := heap.Retainers{Targets: 2, Paths: []heap.RetainerPath{
		{RootKind: "java-frame", RootThread: "stack-holder", RootThreadAllocator: true,
			RootFrameDepth: &depth, Objects: 1, Chain: []heap.PathStep{{ObjectID: "0x50000123", Class: "agentfix.StackOnly"}}},
		{RootKind: "java-frame", RootFrameDepth: &other, Objects: 1, Chain: []heap.PathStep{{ObjectID: "0x50000124", Class: "java.util.concurrent.CountDownLatch"}}},
	}}
	out := renderGolden(t, "retainers-frame-depth", []variant{asTable, asJSON}, func(w io.Writer, o Options) error { return Retainers(w, r, o) })
	wantContains(t, "table", out["table"], "java-frame, thread stack-holder (which allocated it), frame 2 of a stack the dump does not record",
		"java-frame, frame 4 of a thread the dump does not name")
	if !strings.Contains(out["json"], `"root_frame": "",`) || !strings.Contains(out["json"], `"root_frame_depth": 2`) {
		t.Errorf("JSON:\n%s", out["json"])
	}
}
