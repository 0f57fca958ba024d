package graph

import (
	"runtime"
	"slices"
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

// TestSharedLeafOfLongChain: every node of a chain 200 000 long references
// one leaf, which the chain's head then immediately dominates. Meeting
// the chain's nodes one after another must not climb the chain again for
// each (which took quadratic time).
func TestSharedLeafOfLongChain(t *testing.T) {
	const chain = 200_000
	g := analysistest.RandomGraph{Succ: make([][]int, chain+1), Roots: []int{0}}
	for v := range chain {
		g.Succ[v] = []int{chain}
		if v+1 < chain {
			g.Succ[v] = append(g.Succ[v], v+1)
		}
	}
	h, objs, _ := g.Load(t)
	r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.ImmediateDominator(objs[chain]); d != objs[0] {
		t.Errorf("the shared leaf's immediate dominator is %d, want the chain's head %d", d, objs[0])
	}
	for _, v := range []int{1, chain / 2, chain - 1} {
		if d := r.ImmediateDominator(objs[v]); d != objs[v-1] {
			t.Errorf("node %d: immediate dominator %d, want node %d", v, d, v-1)
		}
	}
	if got := r.RetainedObjects(objs[0]); got != chain+1 {
		t.Errorf("the head retains %d objects, want %d", got, chain+1)
	}
}

// TestFrameStackOutOfCore: past its first block a depth-first walk's
// stack is kept in tables the budget maps, gives back every frame pushed,
// and releases them.
func TestFrameStackOutOfCore(t *testing.T) {
	defer bigmem.SetBudget(1, t.TempDir())()
	before := bigmem.MappedBytes()
	const depth = firstFrames + 2*blockFrames + 5
	var s frameStack
	for d := range depth {
		s.push(dfsFrame{obj: model.ObjectIndex(d), num: uint32(2 * d), cursor: uint32(3 * d)})
	}
	if got, want := bigmem.MappedBytes()-before, int64(3*blockFrames*frameWords*4); got != want {
		t.Errorf("%d bytes mapped for %d frames, want %d: three blocks past the first", got, depth, want)
	}
	for d := depth - 1; d >= 0; d-- {
		if f := *s.top(); f != (dfsFrame{obj: model.ObjectIndex(d), num: uint32(2 * d), cursor: uint32(3 * d)}) {
			t.Fatalf("frame %d reads %+v", d, f)
		}
		s.pop()
	}
	s.free()
	if got := bigmem.MappedBytes() - before; got != 0 {
		t.Errorf("%d bytes still mapped after free", got)
	}
}

// TestLongChainOutOfCore: a chain deeper than the walk's first stack
// block, and searched level by level for shortest paths, gives the same
// trees under a one-byte budget as in memory.
func TestLongChainOutOfCore(t *testing.T) {
	const chain = 3 * firstFrames
	g := analysistest.RandomGraph{Succ: make([][]int, chain+1), Roots: []int{0}}
	for v := range chain {
		g.Succ[v] = []int{chain}
		if v+1 < chain {
			g.Succ[v] = append(g.Succ[v], v+1)
		}
	}
	h, objs, _ := g.Load(t)
	inMemory, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	paths := StrongPaths(h)
	defer bigmem.SetBudget(1, t.TempDir())()
	outOfCore, err := ComputeRetention(h, RetentionOptions{Size: model.SizeFields})
	if err != nil {
		t.Fatal(err)
	}
	pathsOut := StrongPaths(h)
	for v, obj := range objs {
		if got, want := outOfCore.ImmediateDominator(obj), inMemory.ImmediateDominator(obj); got != want {
			t.Errorf("node %d: immediate dominator %d out of core, %d in memory", v, got, want)
		}
		if got, want := pathsOut.ChainTo(obj), paths.ChainTo(obj); !slices.Equal(got, want) {
			t.Errorf("node %d: shortest path %v out of core, %v in memory", v, got, want)
		}
	}
	if d := outOfCore.ImmediateDominator(objs[chain]); d != objs[0] {
		t.Errorf("the shared leaf's immediate dominator is %d, want the chain's head %d", d, objs[0])
	}
}

// TestSemidominatorsLongPathOutOfCore: the depth-first tree is a path of
// a million vertices, the deepest one also references vertex 5 and vertex
// 1 also references the middle one, so finding vertex 5's semidominator
// compresses a forest path of the whole depth. Under a one-byte budget
// the computation then takes nothing from the Go heap that grows with
// that path (it once gathered the path into a slice, which took 0.9 GiB
// past the budget on a 12 GiB dump), and the semidominators are those of
// the definition: the tree parent, but vertex 1 for the middle vertex and
// for vertex 5 (the path from 1 through the middle and the deepest vertex
// to 5 passes only vertices numbered above 5).
func TestSemidominatorsLongPathOutOfCore(t *testing.T) {
	defer bigmem.SetBudget(1, t.TempDir())()
	const n, middle = 1 << 20, 1 << 19
	parent := make([]uint32, n)
	for w := 1; w < n; w++ {
		parent[w] = uint32(w - 1)
	}
	lowest := slices.Clone(parent)
	lowest[middle] = 1
	starts := bigmem.Make[uint32](2*n + 2) // vertex 5's list is preds[0:1]: its end, and every later one's, is 1
	defer bigmem.Free(starts)
	for w := 5; w < n; w++ {
		starts[2*w] = 1
	}
	preds := []uint32{n - 1}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	semi := semidominators(parent, lowest, starts, preds)
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<10 {
		t.Errorf("the semidominators of a path %d deep took %d bytes of the Go heap", n, grown)
	}
	for w := 1; w < n; w++ {
		want := uint32(w - 1)
		if w == 5 || w == middle {
			want = 1
		}
		if semi[w] != want {
			t.Fatalf("vertex %d: semidominator %d, want %d", w, semi[w], want)
		}
	}
}
