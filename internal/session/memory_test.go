package session

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestBuildUnderTinyBudget: an index built under a budget of one byte,
// every per-object table of the load and of the dominator computation then
// a mapped scratch file, answers as the dump read in memory does, and
// leaves no scratch file beside the index.
func TestBuildUnderTinyBudget(t *testing.T) {
	direct := openFixture(t, Options{NoIndex: true})
	before := bigmem.MappedBytes()
	built := openFixture(t, Options{Memory: 1})
	sum, err := built.BuildIndex(true)
	if err != nil {
		t.Fatal(err)
	}
	if bigmem.MappedBytes() <= before {
		t.Fatal("nothing was mapped under a one-byte budget")
	}
	if entries, err := os.ReadDir(filepath.Dir(sum.Index)); err != nil || len(entries) != 1 {
		t.Errorf("files beside the index: %v (%v), want the index alone", entries, err)
	}
	for _, o := range []heap.DominatorOptions{{Top: 0}, {Top: 10, ByClass: true}} {
		want, err := direct.Dominators(o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := built.Dominators(o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("dominators %+v under a tiny budget differ from the dump's read in memory", o)
		}
	}
	want, err := direct.Histogram(heap.HistoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := built.Histogram(heap.HistoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the histogram under a tiny budget differs from the dump's read in memory")
	}
}

// TestBuildReadsReferencesFromIndex: once an index is built, the heap
// the build leaves reads its references from the index written (its own
// table freed), under a one-byte budget and without one, and every
// object's references are those of the dump read in memory.
func TestBuildReadsReferencesFromIndex(t *testing.T) {
	direct := openFixture(t, Options{NoIndex: true})
	want, err := direct.loadHeap(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, memory := range []int64{1, 0} {
		built := openFixture(t, Options{Memory: memory})
		if _, err := built.BuildIndex(true); err != nil {
			t.Fatal(err)
		}
		if built.index.unmapRefs == nil {
			t.Fatalf("memory %d: the built heap keeps its own references", memory)
		}
		got := built.heap
		if got.NumObjects() != want.NumObjects() || got.NumRefs() != want.NumRefs() {
			t.Fatalf("memory %d: %d objects, %d references; the dump has %d, %d", memory,
				got.NumObjects(), got.NumRefs(), want.NumObjects(), want.NumRefs())
		}
		for i := range got.NumObjects() {
			o := model.ObjectIndex(i)
			if !slices.Equal(got.Refs(o), want.Refs(o)) {
				t.Fatalf("memory %d: object %d references %v, the dump %v", memory, i, got.Refs(o), want.Refs(o))
			}
		}
	}
}
