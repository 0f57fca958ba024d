package session

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
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
