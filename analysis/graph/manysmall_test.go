package graph

import (
	"bytes"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestManySmallDump reads the dump that make bench-many writes past 2^31
// objects (hproftest.WriteManySmall), here with three arrays of small
// instances and part of a fourth, and checks what the writer made it: the
// objects it counts, each small instance dominated by the one array that
// holds it, each array retaining itself and its instances, each root's
// array retaining its arrays and theirs.
func TestManySmallDump(t *testing.T) {
	const small = 3*hproftest.ManySmallFanout + 5
	var buf bytes.Buffer
	st, err := hproftest.WriteManySmall(&buf, small)
	if err != nil {
		t.Fatal(err)
	}
	if st.Small != small || st.Leaves != 4 || st.Tops != 1 {
		t.Fatalf("wrote %+v", st)
	}
	h := analysistest.LoadDump(t, "many-small", buf.Bytes())
	if h.NumObjects() != int(st.Objects) {
		t.Fatalf("%d objects, the writer wrote %d", h.NumObjects(), st.Objects)
	}
	r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	byClass := map[string][]model.ObjectIndex{}
	for i := range model.ObjectIndex(h.NumObjects()) {
		name := h.Classes[h.ClassOf(i)].Name
		byClass[name] = append(byClass[name], i)
	}
	smalls, leaves, tops := byClass["com.example.Small"], byClass["com.example.Small[]"], byClass["java.lang.Object[]"]
	if len(smalls) != small || len(leaves) != 4 || len(tops) != 1 {
		t.Fatalf("%d small instances, %d arrays of them, %d roots' arrays", len(smalls), len(leaves), len(tops))
	}
	heldBy := map[model.ObjectIndex]int{}
	for k, leaf := range leaves {
		held := h.Refs(leaf)
		if want := min(hproftest.ManySmallFanout, small-k*hproftest.ManySmallFanout); len(held) != want {
			t.Fatalf("array %d holds %d instances, the writer put %d", k, len(held), want)
		}
		for _, s := range held {
			heldBy[s]++
			if d := r.ImmediateDominator(s); d != leaf {
				t.Fatalf("instance %d: immediate dominator %d, not the array %d holding it", s, d, leaf)
			}
		}
		if got := r.RetainedObjects(leaf); got != int64(len(held))+1 {
			t.Errorf("array %d retains %d objects, not itself and its %d instances", k, got, len(held))
		}
		if d := r.ImmediateDominator(leaf); d != tops[0] {
			t.Errorf("array %d: immediate dominator %d, not the root's array %d", k, d, tops[0])
		}
	}
	if len(heldBy) != small {
		t.Errorf("%d instances held by the arrays, of %d", len(heldBy), small)
	}
	if got := r.RetainedObjects(tops[0]); got != small+4+1 {
		t.Errorf("the root's array retains %d objects, not %d", got, small+4+1)
	}
}
