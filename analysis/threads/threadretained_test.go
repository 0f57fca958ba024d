package threads

import (
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// naiveThreadRetained computes what each thread retains by the
// definition: the shallow sizes of the objects no longer reachable once
// the thread's node (its Thread object, which its stack roots hang under)
// is gone, marking from every other root afresh for each thread.
func naiveThreadRetained(h *model.Heap, r *graph.Retention) []int64 {
	n := h.NumObjects()
	isThread := map[model.ObjectIndex]bool{}
	for _, t := range h.Threads {
		if t.Object != model.NoObject {
			isThread[t.Object] = true
		}
	}
	out := make([]int64, len(h.Threads))
	for k, t := range h.Threads {
		seen := make([]bool, n)
		var stack []model.ObjectIndex
		push := func(i model.ObjectIndex) {
			if i != model.NoObject && i != t.Object && !seen[i] {
				seen[i] = true
				stack = append(stack, i)
			}
		}
		for _, rt := range h.Roots {
			held := threadHeld(rt)
			switch {
			case !held:
				push(rt.Object)
			case h.Threads[rt.Thread].Object != t.Object:
				// Another thread's local: its node is still there.
				push(rt.Object)
			}
		}
		for c := range h.Classes {
			if h.Classes[c].Loader == 0 {
				push(h.Classes[c].Object)
			}
		}
		for obj := range isThread {
			push(obj)
		}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range h.Refs(u) {
				push(v)
			}
			if c := h.ClassOf(u); c != model.NoClass {
				push(h.Classes[c].Object)
			}
		}
		for i := range n {
			obj := model.ObjectIndex(i)
			if r.Reachable(obj) && !seen[i] {
				out[k] += graph.ShallowBytes(h, obj, model.SizeJVM)
			}
		}
	}
	return out
}

// TestThreadRetainedMatchesDefinition compares the contracted computation,
// in one goroutine and in four over chunks of 7 objects, with the
// definition on every thread of dumps made by real JVMs.
func TestThreadRetainedMatchesDefinition(t *testing.T) {
	names := []string{"jdk17-inspect-before.hprof.gz", "jdk25-inspect-after.hprof.gz", "jdk17-default.hprof.gz"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			h, r := testload.Fixture(t, name)
			want := naiveThreadRetained(h, r)
			for _, procs := range []int{1, 4} {
				analysistest.WithParallelism(procs, func() {
					got, err := threadRetained(h, r, nil)
					if err != nil {
						t.Fatal(err)
					}
					for k := range want {
						if got[k] != want[k] {
							t.Errorf("%d procs: thread serial %d: %d bytes retained, the definition gives %d", procs, h.Threads[k].Serial, got[k], want[k])
						}
					}
				})
			}
		})
	}
}

// TestThreadRetentionInspect checks the facts fixture.Inspect sets up
// (testdata/jvm/EXPECTED.md, thread "inspect-stack-holder"): frame 5,
// InspectStackHolder.hold, holds the long[1048576] of 8,388,624 bytes,
// which nothing else keeps alive, so the thread retains at least that.
func TestThreadRetentionInspect(t *testing.T) {
	for _, name := range []string{"jdk17-inspect-before.hprof.gz", "jdk17-inspect-after.hprof.gz", "jdk25-inspect-before.hprof.gz", "jdk25-inspect-after.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			h, r := testload.Fixture(t, name)
			hl, err := ReadHeapLocks(h)
			if err != nil {
				t.Fatal(err)
			}
			rows := ThreadsFromHeap(h, hl, 0)
			if err := AddThreadRetention(h, r, rows, nil); err != nil {
				t.Fatal(err)
			}
			var holder *ThreadRow
			for k := range rows {
				if rows[k].RetainedBytes == nil {
					t.Fatalf("thread %q has no retained size", rows[k].Name)
				}
				if rows[k].Name == "inspect-stack-holder" {
					holder = &rows[k]
				}
			}
			if holder == nil {
				t.Fatal("no thread inspect-stack-holder")
			}
			if *holder.RetainedBytes < 8388624 {
				t.Errorf("inspect-stack-holder retains %d bytes, want at least the long[]'s 8388624", *holder.RetainedBytes)
			}
			if len(holder.Frames) < 6 || holder.Frames[5].Method != "fixture.InspectStackHolder.hold" {
				t.Fatalf("frames %+v, want InspectStackHolder.hold at 5", holder.Frames)
			}
			found := false
			for _, l := range holder.Frames[5].Locals {
				if l.Class == "long[]" {
					found = true
					if l.RetainedBytes != 8388624 {
						t.Errorf("frame 5's long[] retains %d bytes, want 8388624", l.RetainedBytes)
					}
				}
			}
			if !found {
				t.Errorf("frame 5 locals %+v, want the long[]", holder.Frames[5].Locals)
			}
			for f, fr := range holder.Frames {
				if fr.Locals == nil {
					t.Errorf("frame %d has nil locals", f)
				}
				for _, l := range fr.Locals {
					if f != 5 && l.Class == "long[]" && l.RetainedBytes == 8388624 {
						t.Errorf("frame %d lists the long[] too", f)
					}
				}
			}
		})
	}
}

// naiveContractedEdges is contractedEdges by its definition: for every
// reference (and class object) of a reached object to an inner one, the
// edge from the object's top-level dominator, climbed to without a memo.
func naiveContractedEdges(h *model.Heap, r *graph.Retention, inner graph.ObjectBits) []uint64 {
	var edges []uint64
	for i := range h.NumObjects() {
		u := model.ObjectIndex(i)
		if r.ImmediateDominator(u) == graph.NotReached {
			continue
		}
		top := u
		for r.ImmediateDominator(top) != graph.VirtualRoot {
			top = r.ImmediateDominator(top)
		}
		targets := slices.Clone(h.Refs(u))
		if c := h.ClassOf(u); c != model.NoClass {
			targets = append(targets, h.Classes[c].Object)
		}
		for _, v := range targets {
			if v != model.NoObject && inner.Has(v) && v != top {
				edges = append(edges, uint64(top)<<32|uint64(v))
			}
		}
	}
	slices.Sort(edges)
	return slices.Compact(edges)
}

// TestContractedEdgesMatchesDefinition compares contractedEdges with its
// definition on random heaps whose top-level objects are all taken for
// inner ones (and some other objects besides), in one goroutine and in
// four over chunks of 7 objects, and in four under a one-byte budget.
func TestContractedEdgesMatchesDefinition(t *testing.T) {
	for seed := range uint64(20) {
		h := analysistest.RandomHeap(t, seed)
		r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inner := graph.NewObjectBits(h.NumObjects())
		for i, d := range r.ImmediateDominators() {
			if d == graph.VirtualRoot || i%5 == 0 {
				inner.Add(model.ObjectIndex(i))
			}
		}
		want := naiveContractedEdges(h, r, inner)
		for _, procs := range []int{1, 4} {
			analysistest.WithParallelism(procs, func() {
				got, err := contractedEdges(h, r.ImmediateDominators(), inner)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("seed %d, %d procs: %d edges, the definition gives %d", seed, procs, len(got), len(want))
				}
			})
		}
		// Under a one-byte budget every bucket and the list are
		// scratch-file tables, grown and freed as they are joined.
		restore := bigmem.SetBudget(1, t.TempDir())
		analysistest.WithParallelism(4, func() {
			got, err := contractedEdges(h, r.ImmediateDominators(), inner)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("seed %d, one-byte budget: %d edges, the definition gives %d", seed, len(got), len(want))
			}
			bigmem.Free(got)
		})
		restore()
	}
}

// TestContractedEdgesCorrupt: dominators that run in a cycle (a corrupt
// index) are an error, not a hang.
func TestContractedEdgesCorrupt(t *testing.T) {
	h := analysistest.RandomHeap(t, 3)
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inner := graph.NewObjectBits(h.NumObjects())
	bad := slices.Clone(r.ImmediateDominators())
	for i, d := range bad {
		if d != graph.NotReached {
			inner.Add(model.ObjectIndex(i))
			bad[i] = model.ObjectIndex(i)
		}
	}
	for _, procs := range []int{1, 4} {
		analysistest.WithParallelism(procs, func() {
			if _, err := contractedEdges(h, bad, inner); err == nil {
				t.Errorf("%d procs: no error for dominators that lead nowhere", procs)
			}
		})
	}
}
