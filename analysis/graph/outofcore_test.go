package graph

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestDominatorsOutOfCore: under a memory budget of one byte every table
// of the load and of the dominator computation is a mapped scratch file;
// the tree and the retained sizes are then those computed in memory and
// those the definition gives, on random graphs.
func TestDominatorsOutOfCore(t *testing.T) {
	for seed := range uint64(20) {
		g := analysistest.NewRandomGraph(seed)
		h, objs, _ := g.Load(t)
		inMemory, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
		if err != nil {
			t.Fatal(err)
		}
		restore := bigmem.SetBudget(1, t.TempDir())
		mappedBefore := bigmem.MappedBytes()
		hOut, objsOut, _ := g.Load(t)
		outOfCore, err := ComputeRetention(hOut, RetentionOptions{Size: model.SizeFields})
		mapped := bigmem.MappedBytes() - mappedBefore
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if mapped <= 0 {
			t.Fatalf("seed %d: nothing was mapped under a one-byte budget", seed)
		}
		want := analysistest.NaiveDominators(g.Succ, g.Roots)
		wantObjects, _ := g.NaiveRetained(want)
		for v, obj := range objs {
			out := objsOut[v]
			if got, mem := outOfCore.ImmediateDominator(out), inMemory.ImmediateDominator(obj); got != mem {
				t.Errorf("seed %d: node %d: immediate dominator %d out of core, %d in memory", seed, v, got, mem)
			}
			switch d := outOfCore.ImmediateDominator(out); {
			case want[v] == -2 && outOfCore.Reachable(out):
				t.Errorf("seed %d: node %d is unreachable, but in the tree", seed, v)
			case want[v] == -1 && d != model.NoObject:
				t.Errorf("seed %d: node %d: immediate dominator %d, want the virtual root", seed, v, d)
			case want[v] >= 0 && d != objsOut[want[v]]:
				t.Errorf("seed %d: node %d: immediate dominator %d, want node %d", seed, v, d, want[v])
			}
			if want[v] == -2 {
				continue
			}
			if got := outOfCore.RetainedObjects(out); got != wantObjects[v] || got != inMemory.RetainedObjects(obj) {
				t.Errorf("seed %d: node %d retains %d objects out of core, %d in memory, want %d", seed, v, got, inMemory.RetainedObjects(obj), wantObjects[v])
			}
			if got, mem := outOfCore.RetainedBytes(out), inMemory.RetainedBytes(obj); got != mem {
				t.Errorf("seed %d: node %d retains %d bytes out of core, %d in memory", seed, v, got, mem)
			}
		}
	}
}
