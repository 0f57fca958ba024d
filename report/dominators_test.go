package report

import (
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestDominatorsGolden(t *testing.T) {
	d := heap.DominatorReport{
		Rows: []heap.DominatorRow{
			{ObjectID: "0x7a1b2c3d8", Class: "java.util.HashMap", ShallowBytes: 48, RetainedBytes: sixGiB, RetainedObjects: 2_000_001,
				ImmediateDominator: heap.RootID, DominatedCount: 5, Dominated: []heap.DominatedObject{
					{ObjectID: "0x7a1b2c408", Class: "java.util.HashMap$Node[]", RetainedBytes: sixGiB - 48 - 1000},
					{ObjectID: "0x7a1b2c9f0", Class: weirdClass, RetainedBytes: 1000},
				}},
			{ObjectID: "0x7a1b30000", Class: "com.exämple.Größe", ShallowBytes: 16, RetainedBytes: 4096, RetainedObjects: 3,
				ImmediateDominator: "0x7a1b2c3d8", DominatedCount: 1, Dominated: []heap.DominatedObject{}},
		},
		Selected: 9, ReachableObjects: 3_000_000, ReachableBytes: 7 << 30,
		UnreachableObjects: 1234, UnreachableBytes: 56_789,
	}
	out := renderGolden(t, "dominators", allVariants, func(w io.Writer, o Options) error { return Dominators(w, d, o) })
	wantContains(t, "table", out["table"], "6.0 GiB", "2,000,001", "… 3 more", "reachable heap (2 of 9 objects shown)", "7.0 GiB")
	wantLines(t, "table", out["table"], "1,234 unreachable objects (55 KiB) left out; --keep-unreachable includes them")
	wantLines(t, "table --bytes", out["bytes"], "1,234 unreachable objects (56789) left out; --keep-unreachable includes them")
	recs := readCSV(t, out["csv"])
	if len(recs) != 3 {
		t.Errorf("CSV has %d records, want the header and one row per dominator (the dominated objects are JSON's and the table's):\n%s", len(recs), out["csv"])
	}
	var back []heap.DominatorRow
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || back[0].RetainedBytes != sixGiB || len(back[0].Dominated) != 2 || back[0].Dominated[1].Class != weirdClass {
		t.Errorf("JSON decodes to %+v", back)
	}

	kept := d
	kept.Rows = d.Rows[1:]
	kept.Selected = 1
	kept.KeptUnreachable = true
	out = renderGolden(t, "dominators-kept", []variant{asTable}, func(w io.Writer, o Options) error { return Dominators(w, kept, o) })
	wantLines(t, "table --keep-unreachable", out["table"], "1,234 unreachable objects (55 KiB) kept under the root (--keep-unreachable)")
}

func TestDominatorsByClassGolden(t *testing.T) {
	d := heap.DominatorReport{
		Classes: []heap.DominatorClassRow{
			{Class: "java.util.HashMap", Objects: 3, ShallowBytes: 144, RetainedBytes: sixGiB},
			{Class: weirdClass, Objects: 1, ShallowBytes: 24, RetainedBytes: 1000},
		},
		Selected: 4, ReachableObjects: 3_000_000, ReachableBytes: 7 << 30,
	}
	out := renderGolden(t, "dominators-by-class", allVariants, func(w io.Writer, o Options) error { return Dominators(w, d, o) })
	recs := readCSV(t, out["csv"])
	if len(recs) != 3 || recs[0][3] != "class" || recs[1][2] != "6442451067" || recs[2][3] != weirdClass {
		t.Errorf("CSV %q", recs)
	}
	var back []heap.DominatorClassRow
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || back[0] != d.Classes[0] {
		t.Errorf("JSON decodes to %+v, want %+v", back, d.Classes)
	}
}

func TestDominatorsEmptyGolden(t *testing.T) {
	d := heap.DominatorReport{ReachableObjects: 10, ReachableBytes: 480}
	out := renderGolden(t, "dominators-empty", allVariants, func(w io.Writer, o Options) error { return Dominators(w, d, o) })
	if out["json"] != "[]\n" {
		t.Errorf("JSON %q, want []", out["json"])
	}
	if out["table"] != "no object in the dominator tree matches (reachable heap: 10 objects, 480 B)\n" {
		t.Errorf("table %q, want the line saying no object matches, with the reachable heap", out["table"])
	}
	byClass := heap.DominatorReport{Classes: []heap.DominatorClassRow{}, UnreachableObjects: 2, UnreachableBytes: 32}
	out = renderGolden(t, "dominators-by-class-empty", allVariants, func(w io.Writer, o Options) error { return Dominators(w, byClass, o) })
	if out["json"] != "[]\n" {
		t.Errorf("--by-class JSON %q, want []", out["json"])
	}
	wantLines(t, "--by-class table", out["table"], "no class in the dominator tree matches", "2 unreachable objects (32 B) left out; --keep-unreachable includes them")
}
