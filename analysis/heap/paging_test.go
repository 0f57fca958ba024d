package heap

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// boxes writes two roots: a Parent whose seven fields each hold a Box of
// its own, Box k owning a byte[100(k+1)], and a Pair whose two fields
// hold Boxes of 50 and 10 bytes. Counting field bytes only, Box k retains
// 8 + 100(k+1) bytes, the Pair's Boxes 58 and 18.
func boxes(t *testing.T) (*model.Heap, *graph.Retention, model.ObjectIndex, model.ObjectIndex) {
	t.Helper()
	var parent, pair hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		box := w.Class("Box", nil, hproftest.Field{Name: "data", Type: hproftest.TypeObject})
		newBox := func(n int) hproftest.Value {
			return hproftest.Ref(w.Instance(box, hproftest.Ref(w.PrimArray(hproftest.TypeByte, make([]byte, n)))))
		}
		var fields []hproftest.Field
		var values []hproftest.Value
		for k := range 7 {
			fields = append(fields, hproftest.Field{Name: fmt.Sprintf("k%d", k), Type: hproftest.TypeObject})
			values = append(values, newBox(100*(k+1)))
		}
		parent = w.Instance(w.Class("Parent", nil, fields...), values...)
		pair = w.Instance(w.Class("Pair", nil, fields[:2]...), newBox(50), newBox(10))
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: parent, JNIRef: 1})
		w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: pair, JNIRef: 2})
	})
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := h.Lookup(uint64(parent))
	q, _ := h.Lookup(uint64(pair))
	return h, r, p, q
}

// retainedOf lists the retained sizes of a report's rows.
func retainedOf(d DominatorReport) []int64 {
	var out []int64
	for _, row := range d.Rows {
		out = append(out, row.RetainedBytes)
	}
	return out
}

// TestDominatedByPages: the Parent's seven Boxes, biggest first, come a
// page at a time: Offset skips the biggest, Top counts from there, and
// Selected counts them all.
func TestDominatedByPages(t *testing.T) {
	h, r, parent, _ := boxes(t)
	for _, c := range []struct {
		offset, top int
		want        []int64
	}{
		{0, 3, []int64{708, 608, 508}},
		{3, 3, []int64{408, 308, 208}},
		{6, 3, []int64{108}},
		{7, 3, nil},
		{2, 0, []int64{508, 408, 308, 208, 108}},
	} {
		d := DominatedBy(h, r, parent, DominatorOptions{Offset: c.offset, Top: c.top, Size: model.SizeFields})
		if got := retainedOf(d); !slices.Equal(got, c.want) || d.Selected != 7 {
			t.Errorf("offset %d, top %d: retained %v of %d, want %v of 7", c.offset, c.top, got, d.Selected, c.want)
		}
	}
}

// TestDominatedByEachAsDominatedBy: what each parent dominates, asked at
// once, is what DominatedBy answers for each alone.
func TestDominatedByEachAsDominatedBy(t *testing.T) {
	h, r, parent, pair := boxes(t)
	o := DominatorOptions{Top: 4, Offset: 1, Size: model.SizeFields}
	each := DominatedByEach(h, r, []model.ObjectIndex{pair, parent}, o)
	for k, obj := range []model.ObjectIndex{pair, parent} {
		alone := DominatedBy(h, r, obj, o)
		if !slices.Equal(retainedOf(each[k]), retainedOf(alone)) || each[k].Selected != alone.Selected {
			t.Errorf("parent %d: each gives %v of %d, alone %v of %d", k, retainedOf(each[k]), each[k].Selected, retainedOf(alone), alone.Selected)
		}
	}
	if got := retainedOf(each[0]); !slices.Equal(got, []int64{18}) {
		t.Errorf("the Pair's Boxes after the first: %v, want [18]", got)
	}
}

// TestRetainedTreeKeepsTheBig: from the virtual root, the tree holds the
// Parent (56 field bytes and its Boxes) and the Pair, the Boxes of at
// least 300 bytes beneath the Parent, biggest first, and their arrays
// beneath them; below the Pair nothing is that big.
func TestRetainedTreeKeepsTheBig(t *testing.T) {
	h, r, parent, _ := boxes(t)
	root := RetainedTree(h, r, model.NoObject, 3, 300, model.HeapSelection{})
	if root.ObjectID != RootID || root.RetainedBytes != r.ReachableBytes() || len(root.Children) != 1 {
		t.Fatalf("root %+v: want the reachable heap with the Parent alone at least 300 bytes", root)
	}
	p := root.Children[0]
	if p.ObjectID != ObjectID(h, parent) || p.RetainedBytes != 56+708+608+508+408+308+208+108 {
		t.Errorf("top: %s retaining %d", p.Class, p.RetainedBytes)
	}
	var kids []int64
	for _, c := range p.Children {
		kids = append(kids, c.RetainedBytes)
		if len(c.Children) != 1 || c.Children[0].Class != "byte[]" || c.Children[0].RetainedBytes != c.RetainedBytes-8 {
			t.Errorf("beneath Box %s: %+v, want its byte[]", c.ObjectID, c.Children)
		}
	}
	if !slices.Equal(kids, []int64{708, 608, 508, 408, 308}) {
		t.Errorf("the Parent's Boxes in the tree: %v, want those of 300 bytes or more, biggest first", kids)
	}
	below := RetainedTree(h, r, parent, 1, 0, model.HeapSelection{})
	if below.ObjectID != ObjectID(h, parent) || len(below.Children) != 7 || len(below.Children[0].Children) != 0 {
		t.Errorf("one level below the Parent: %+v, want its seven Boxes and nothing beneath", below)
	}
}

// TestByClassCountsNestedOnceInBits is TestByClassCountsNestedOnce for a
// class of so many objects that they are marked in bits: a list of
// manyObjects+4 Links and one more Link on its own retain, grouped by
// class, their own field bytes once each.
func TestByClassCountsNestedOnceInBits(t *testing.T) {
	const links = manyObjects + 5
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		link := w.Class("Link", nil, hproftest.Field{Name: "next", Type: hproftest.TypeObject})
		var next hproftest.ID
		for range links - 1 {
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
	if c := rep.Classes[0]; c.Objects != links || c.ShallowBytes != links*8 || c.RetainedBytes != links*8 {
		t.Errorf("Link row %+v: want %d objects, %d shallow and retained bytes", c, links, links*8)
	}
}
