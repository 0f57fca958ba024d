package report

import (
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// heapDiff is a diff with growth, shrinkage, new and gone classes, a
// limit passed and the top of the dominator tree.
func heapDiff() heap.HeapDiff {
	limit := int64(10 << 20)
	return heap.HeapDiff{
		Classes: []heap.DiffRow{
			{Class: "byte[]", OldInstances: 1_000, NewInstances: 1_250_000, InstancesDelta: 1_249_000, OldBytes: 24_000, NewBytes: sixGiB, BytesDelta: sixGiB - 24_000},
			{Class: weirdClass, OldInstances: 0, NewInstances: 3, InstancesDelta: 3, OldBytes: 0, NewBytes: 72, BytesDelta: 72},
			{Class: "com.exämple.Größe", OldInstances: 5, NewInstances: 0, InstancesDelta: -5, OldBytes: 80, NewBytes: 0, BytesDelta: -80},
		},
		NewClasses:  []string{weirdClass},
		GoneClasses: []string{"com.exämple.Größe"},
		Retained: []heap.RetainedDiffRow{
			{Class: "java.lang.Thread", OldObjects: 10, NewObjects: 12, OldRetainedBytes: 4_096, NewRetainedBytes: sixGiB, RetainedDelta: sixGiB - 4_096},
			{Class: "long[]", OldObjects: 1, NewObjects: 0, OldRetainedBytes: 8_388_624, NewRetainedBytes: 0, RetainedDelta: -8_388_624},
		},
		Total:             heap.DiffRow{Class: "total", OldInstances: 40_000, NewInstances: 1_288_998, InstancesDelta: 1_248_998, OldBytes: 9_000_000, NewBytes: sixGiB + 8_975_992, BytesDelta: sixGiB - 24_008},
		OldReachableBytes: 8_900_000, NewReachableBytes: sixGiB + 500_000,
		Limit: &limit, OverLimit: []string{"total", "byte[]"},
		ChangedClasses: 7, ChangedRetained: 2,
	}
}

func TestDiffGolden(t *testing.T) {
	d := heapDiff()
	out := renderGolden(t, "diff", allVariants, func(w io.Writer, o Options) error { return Diff(w, d, o) })
	recs := readCSV(t, out["csv"])
	if len(recs) != 1+len(d.Classes) || recs[0][2] != "instances_delta" || recs[1][5] != "6442427067" || recs[3][2] != "-5" || recs[2][6] != weirdClass {
		t.Errorf("CSV %q, want the header and 3 exact rows", recs)
	}
	var back heap.HeapDiff
	decodeJSON(t, out["json"], &back)
	if len(back.Classes) != 3 || back.Classes[0] != d.Classes[0] || back.Retained[1] != d.Retained[1] || back.Total != d.Total ||
		*back.Limit != 10<<20 || len(back.OverLimit) != 2 || back.NewClasses[0] != weirdClass || back.GoneClasses[0] != "com.exämple.Größe" {
		t.Errorf("JSON decodes to %+v, want %+v", back, d)
	}
	wantContains(t, "table", out["table"], "+6.0 GiB", "+1,249,000", "-80 B", "-5", "total (3 of 7 changed classes shown)",
		"new classes (1): "+weirdClass, "gone classes (1): com.exämple.Größe", "-8.0 MiB", "reachable heap",
		"grew more than the limit (10 MiB): total, byte[]")
	wantContains(t, "table --bytes", out["bytes"], "+6442427067", "-8388624", "(10485760)")
}

func TestDiffNothingChangedGolden(t *testing.T) {
	d := heap.HeapDiff{Classes: []heap.DiffRow{}, NewClasses: []string{}, GoneClasses: []string{},
		Total: heap.DiffRow{Class: "total", OldInstances: 10, NewInstances: 10, OldBytes: 240, NewBytes: 240}}
	out := renderGolden(t, "diff-none", allVariants, func(w io.Writer, o Options) error { return Diff(w, d, o) })
	if out["table"] != "no class changed (10 instances, 240 B in both)\n" {
		t.Errorf("table %q", out["table"])
	}
	if out["csv"] != "old_instances,new_instances,instances_delta,old_bytes,new_bytes,bytes_delta,class\n" {
		t.Errorf("CSV %q", out["csv"])
	}
	limit := int64(0)
	d.Limit, d.OverLimit = &limit, []string{}
	out = renderGolden(t, "diff-none-limit", []variant{asTable}, func(w io.Writer, o Options) error { return Diff(w, d, o) })
	wantContains(t, "table with a limit", out["table"], "nothing grew more than the limit (0 B)")
}
