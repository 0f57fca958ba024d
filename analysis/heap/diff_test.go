package heap

import (
	"slices"
	"testing"
)

// diffInputs are two histograms and by-class top consumers made by hand:
// Cache grows, Buffer shrinks, Old is gone, New appears, Dup is defined
// twice (two loaders) in the new dump, Same is unchanged.
func diffInputs() (oldH, newH Histo, oldT, newT *TopConsumerReport) {
	oldH = Histo{Rows: []HistoRow{
		{Class: "Cache", Instances: 10, ShallowBytes: 240}, {Class: "Buffer", Instances: 4, ShallowBytes: 4000}, {Class: "Old", Instances: 1, ShallowBytes: 16}, {Class: "Dup", Instances: 1, ShallowBytes: 24}, {Class: "Same", Instances: 3, ShallowBytes: 72},
	}}
	newH = Histo{Rows: []HistoRow{
		{Class: "Cache", Instances: 1010, ShallowBytes: 24240}, {Class: "Buffer", Instances: 2, ShallowBytes: 2000}, {Class: "New", Instances: 5, ShallowBytes: 80}, {Class: "Dup", Instances: 1, ShallowBytes: 24}, {Class: "Dup", Instances: 2, ShallowBytes: 48}, {Class: "Same", Instances: 3, ShallowBytes: 72},
	}}
	oldT = &TopConsumerReport{TotalBytes: 5000, Rows: []TopConsumerRow{{Name: "Holder", Objects: 1, RetainedBytes: 300}, {Name: "Stack", Objects: 2, RetainedBytes: 4000}, {Name: "Same", Objects: 1, RetainedBytes: 50}}}
	newT = &TopConsumerReport{TotalBytes: 27000, Rows: []TopConsumerRow{{Name: "Holder", Objects: 1, RetainedBytes: 24300}, {Name: "Stack", Objects: 1, RetainedBytes: 2000}, {Name: "Same", Objects: 1, RetainedBytes: 50}, {Name: "Fresh", Objects: 3, RetainedBytes: 60}}}
	return
}

func TestDiff(t *testing.T) {
	oldH, newH, oldT, newT := diffInputs()
	d := Diff(oldH, newH, oldT, newT, DiffOptions{})
	want := []DiffRow{
		{"Cache", 10, 1010, 1000, 240, 24240, 24000},
		{"New", 0, 5, 5, 0, 80, 80},
		{"Dup", 1, 3, 2, 24, 72, 48},
		{"Old", 1, 0, -1, 16, 0, -16},
		{"Buffer", 4, 2, -2, 4000, 2000, -2000},
	}
	if !slices.Equal(d.Classes, want) {
		t.Errorf("classes:\n got %+v\nwant %+v", d.Classes, want)
	}
	if total := (DiffRow{"total", 19, 1023, 1004, 4352, 26464, 22112}); d.Total != total {
		t.Errorf("total %+v, want %+v", d.Total, total)
	}
	if !slices.Equal(d.NewClasses, []string{"New"}) || !slices.Equal(d.GoneClasses, []string{"Old"}) {
		t.Errorf("new %q, gone %q; want [New], [Old]", d.NewClasses, d.GoneClasses)
	}
	wantRet := []RetainedDiffRow{
		{"Holder", 1, 1, 300, 24300, 24000},
		{"Fresh", 0, 3, 0, 60, 60},
		{"Stack", 2, 1, 4000, 2000, -2000},
	}
	if !slices.Equal(d.Retained, wantRet) || d.OldReachableBytes != 5000 || d.NewReachableBytes != 27000 {
		t.Errorf("retained:\n got %+v\nwant %+v", d.Retained, wantRet)
	}
	if d.Limit != nil || d.OverLimit != nil {
		t.Errorf("a limit without one: %v %q", d.Limit, d.OverLimit)
	}

	// Without top consumers there is no retained list.
	if d := Diff(oldH, newH, nil, nil, DiffOptions{}); d.Retained != nil {
		t.Errorf("retained without top consumers: %+v", d.Retained)
	}

	// Top cuts both lists, not the limit check nor the counts.
	d = Diff(oldH, newH, oldT, newT, DiffOptions{Top: 1, Limit: &GrowthLimit{Bytes: 40}})
	if len(d.Classes) != 1 || len(d.Retained) != 1 || d.ChangedClasses != 5 || d.ChangedRetained != 3 {
		t.Errorf("--top 1: %d and %d rows of %d and %d", len(d.Classes), len(d.Retained), d.ChangedClasses, d.ChangedRetained)
	}
	if !slices.Equal(d.OverLimit, []string{"total", "Cache", "New", "Dup"}) || *d.Limit != 40 {
		t.Errorf("over 40 bytes: %q (limit %d), want total, Cache, New, Dup", d.OverLimit, *d.Limit)
	}
	// A percent is of the old heap's bytes: 1% of 4352 is 43.52.
	d = Diff(oldH, newH, nil, nil, DiffOptions{Limit: &GrowthLimit{Percent: 1}})
	if !slices.Equal(d.OverLimit, []string{"total", "Cache", "New", "Dup"}) || *d.Limit != 43 {
		t.Errorf("over 1%%: %q (limit %d)", d.OverLimit, *d.Limit)
	}
	d = Diff(oldH, newH, nil, nil, DiffOptions{Limit: &GrowthLimit{Percent: 600}})
	if d.OverLimit == nil || len(d.OverLimit) != 0 {
		t.Errorf("over 600%%: %q, want an empty list", d.OverLimit)
	}
	// The same dump twice: nothing changed.
	d = Diff(oldH, oldH, oldT, oldT, DiffOptions{Limit: &GrowthLimit{}})
	if len(d.Classes) != 0 || len(d.Retained) != 0 || len(d.NewClasses) != 0 || len(d.GoneClasses) != 0 || len(d.OverLimit) != 0 || d.Total.BytesDelta != 0 {
		t.Errorf("a dump against itself: %+v", d)
	}
}

// TestDiffReachableDelta: the reachable heap's change is the new root's
// retained size less the old one's, negative when it shrank.
func TestDiffReachableDelta(t *testing.T) {
	for _, c := range []struct{ old, cur, want int64 }{{5000, 27000, 22000}, {27000, 5000, -22000}, {0, 0, 0}} {
		if got := (HeapDiff{OldReachableBytes: c.old, NewReachableBytes: c.cur}).ReachableDelta(); got != c.want {
			t.Errorf("%d to %d bytes: delta %d, want %d", c.old, c.cur, got, c.want)
		}
	}
}
