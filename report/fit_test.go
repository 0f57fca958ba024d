package report

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/mattn/go-runewidth"
)

// longClasses is a dominator report of classes with long names, as a
// Spring application's are, and an id and numbers that must stay whole.
func longClasses() heap.DominatorReport {
	return heap.DominatorReport{
		Rows: []heap.DominatorRow{
			{ObjectID: "0x7a1b2c3d8", Class: "org.springframework.beans.factory.support.DefaultListableBeanFactory", ShallowBytes: 48,
				RetainedBytes: 123_456_789, RetainedObjects: 2_000_001, ImmediateDominator: heap.RootID},
			{ObjectID: "0x7a1b30000", Class: "java.util.concurrent.ConcurrentHashMap$Node[]", ShallowBytes: 16, RetainedBytes: 4096,
				RetainedObjects: 3, ImmediateDominator: "0x7a1b2c3d8"},
			{ObjectID: "0x7a1b40000", Class: "中文.类名.很长的类名.还有更长的名字.最后的类", ShallowBytes: 16, RetainedBytes: 1024,
				RetainedObjects: 1, ImmediateDominator: "0x7a1b2c3d8"},
		},
		Selected: 3, ReachableObjects: 3_000_000, ReachableBytes: 7 << 30,
	}
}

// TestTableFitsWidth renders a table of long class names in a forced
// terminal width: every line fits, the class names are cut in the middle
// and keep their end, and the ids and numbers stay whole; without a width
// the table is as wide as its cells.
func TestTableFitsWidth(t *testing.T) {
	d := longClasses()
	var whole strings.Builder
	if err := Dominators(&whole, d, Options{Format: Table, ExactBytes: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole.String(), d.Rows[0].Class) || maxLineWidth(whole.String()) <= 130 {
		t.Fatalf("without a width the table is not whole:\n%s", whole.String())
	}
	for _, width := range []int{120, 130} {
		var b strings.Builder
		if err := Dominators(&b, d, Options{Format: Table, ExactBytes: true, Width: width}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if w := maxLineWidth(out); w > width {
			t.Errorf("width %d: a line is %d cells wide:\n%s", width, w, out)
		}
		wantContains(t, "fitted table", out, "0x7a1b2c3d8", "0x7a1b30000", "123456789", "2,000,001", "…", "eanFactory", "Map$Node[]", "最后的类")
		if strings.Contains(out, d.Rows[0].Class) {
			t.Errorf("width %d: the long class name is whole:\n%s", width, out)
		}
	}
	var narrow strings.Builder
	if err := Dominators(&narrow, d, Options{Format: Table, Width: 20}); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "table narrower than its numbers", narrow.String(), "0x7a1b2c3d8", "118 MiB", "2,000,001")
	var csv strings.Builder
	if err := Dominators(&csv, d, Options{Format: CSV, Width: 20}); err != nil || !strings.Contains(csv.String(), d.Rows[0].Class) {
		t.Errorf("CSV cut to a width: %v\n%s", err, csv.String())
	}
}

// TestShortenMiddle checks the cut of one cell: at most the width asked,
// the start and the (longer) end kept, wide runes counted as two cells.
func TestShortenMiddle(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"java.util.HashMap", 20, "java.util.HashMap"},
		{"java.util.concurrent.ConcurrentHashMap$Node[]", 20, "java.util…Map$Node[]"},
		{"java.util.concurrent.ConcurrentHashMap$Node[]", 11, "java.…ode[]"},
		{"中文.类名.很长的类名", 9, "中文…类名"},
		{"abc", 2, "abc"},
	} {
		got := shortenMiddle(c.in, c.w)
		if got != c.want || (runewidth.StringWidth(c.in) > c.w && c.w >= 3 && runewidth.StringWidth(got) > c.w) {
			t.Errorf("shortenMiddle(%q, %d) = %q (%d cells), want %q", c.in, c.w, got, runewidth.StringWidth(got), c.want)
		}
	}
}

// maxLineWidth is the widest line of s in terminal cells.
func maxLineWidth(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, runewidth.StringWidth(line))
	}
	return w
}
