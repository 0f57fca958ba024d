package heap

import (
	"regexp"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestByClassCountsNestedOnce: a list of five Links and one more Link on
// its own. Grouped by class, the Links retain the union of their retained
// sets — the five of the list and the lone one, 6 × 8 field bytes — not
// the sum 5+4+3+2+1+1 links that adding each one's retained size gives.
func TestByClassCountsNestedOnce(t *testing.T) {
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		var next hproftest.ID
		for range 5 {
			next = w.Instance(link, hproftest.Ref(next))
		}
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: next, JNIRef: 1})
		lone := w.Instance(link, hproftest.Ref(0))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: lone, JNIRef: 2})
	})
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	rep := Dominators(h, r, DominatorOptions{Class: regexp.MustCompile(`^Link$`), ByClass: true, Size: model.SizeFields})
	if len(rep.Classes) != 1 {
		t.Fatalf("%d class rows, want 1", len(rep.Classes))
	}
	if c := rep.Classes[0]; c.Objects != 6 || c.ShallowBytes != 6*8 || c.RetainedBytes != 6*8 {
		t.Errorf("Link row %+v: want 6 objects, 48 shallow and 48 retained bytes", c)
	}
}

// TestDominatorReachablePercent: a share of the reachable heap; none of an
// empty one.
func TestDominatorReachablePercent(t *testing.T) {
	d := DominatorReport{ReachableBytes: 2000}
	for _, c := range []struct {
		retained int64
		want     float64
	}{{1000, 50}, {250, 12.5}, {0, 0}, {2000, 100}} {
		if got := d.ReachablePercent(c.retained); got != c.want {
			t.Errorf("%d of 2000 bytes: %v%%, want %v%%", c.retained, got, c.want)
		}
	}
	if got := (DominatorReport{}).ReachablePercent(100); got != 0 {
		t.Errorf("share of an empty heap %v%%, want 0", got)
	}
}
