// Package analysistest holds what the tests of the analysis packages
// share: synthetic and random heaps, the definition of the dominator tree
// on small graphs, and parallel passes cut small.
package analysistest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// LoadSynthetic writes a dump with write and loads it with its objects.
func LoadSynthetic(t testing.TB, write func(w *hproftest.Writer)) *model.Heap {
	t.Helper()
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{})
	w.BeginHeapDump()
	write(w)
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return LoadDump(t, "synthetic", buf.Bytes())
}

// LoadDump loads the dump in data, named name, with its objects.
func LoadDump(t testing.TB, name string, data []byte) *model.Heap {
	t.Helper()
	f, err := input.NewFile(name, io.NopCloser(bytes.NewReader(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Lookup is the index of the object with id, which must be in the heap.
func Lookup(t testing.TB, h *model.Heap, id hproftest.ID) model.ObjectIndex {
	t.Helper()
	i, ok := h.Lookup(uint64(id))
	if !ok {
		t.Fatalf("object 0x%x not in the heap", id)
	}
	return i
}

// NaiveDominators computes immediate dominators of a small graph by the
// definition: d dominates v when v is unreachable from the roots once d is
// removed. It returns -1 for the virtual root, -2 for unreachable nodes.
func NaiveDominators(succ [][]int, roots []int) []int {
	n := len(succ)
	reach := func(removed int) []bool {
		seen := make([]bool, n)
		var stack []int
		for _, r := range roots {
			if r != removed && !seen[r] {
				seen[r] = true
				stack = append(stack, r)
			}
		}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, s := range succ[v] {
				if s != removed && !seen[s] {
					seen[s] = true
					stack = append(stack, s)
				}
			}
		}
		return seen
	}
	all := reach(-1)
	dominators := make([][]int, n) // strict dominators of each node
	for d := range n {
		without := reach(d)
		for v := range n {
			if v != d && all[v] && !without[v] {
				dominators[v] = append(dominators[v], d)
			}
		}
	}
	idom := make([]int, n)
	for v := range n {
		idom[v] = -2
		if !all[v] {
			continue
		}
		idom[v] = -1
		// The immediate dominator is the strict dominator that all the
		// others dominate: the one with the most strict dominators.
		best := -1
		for _, d := range dominators[v] {
			if best < 0 || len(dominators[d]) > len(dominators[best]) {
				best = d
			}
		}
		if best >= 0 {
			idom[v] = best
		}
	}
	return idom
}

// RandomGraph is a small random graph, mostly forward chains so that its
// dominator trees are deep, and the nodes that are GC roots.
type RandomGraph struct {
	Succ  [][]int
	Roots []int
}

// NewRandomGraph makes the random graph of seed.
func NewRandomGraph(seed uint64) RandomGraph {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := 20 + rng.IntN(150)
	succ := make([][]int, n)
	for v := range succ {
		for range rng.IntN(4) {
			succ[v] = append(succ[v], rng.IntN(n))
		}
		if v > 0 && rng.IntN(3) > 0 {
			succ[v-1] = append(succ[v-1], v)
		}
	}
	return RandomGraph{Succ: succ, Roots: []int{0, rng.IntN(n)}}
}

// Load writes g as a dump of one Object[] per node and loads it. It
// returns the heap, each node's object, and the objects of the classes:
// besides the nodes the heap holds the array class's object, a system
// class, so one more object the virtual root immediately dominates, which
// has no statics, so 0 field bytes.
func (g RandomGraph) Load(t testing.TB) (h *model.Heap, objs, mirrors []model.ObjectIndex) {
	ids := make([]hproftest.ID, len(g.Succ))
	h = LoadSynthetic(t, func(w *hproftest.Writer) {
		arrays := w.Class("[Ljava/lang/Object;", nil)
		for v := range ids {
			ids[v] = w.Alloc(64)
		}
		for v, s := range g.Succ {
			elems := make([]hproftest.ID, len(s))
			for k, x := range s {
				elems[k] = ids[x]
			}
			w.ObjArrayDump(hproftest.ObjArrayDump{ID: ids[v], ClassID: arrays.ID, Elements: elems})
		}
		for _, r := range g.Roots {
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: ids[r], JNIRef: 1})
		}
	})
	objs = make([]model.ObjectIndex, len(ids))
	for v, id := range ids {
		objs[v] = Lookup(t, h, id)
	}
	for _, c := range h.Classes {
		if c.Object != model.NoObject {
			mirrors = append(mirrors, c.Object)
		}
	}
	return h, objs, mirrors
}

// NaiveRetained counts, for each node of g, the nodes it dominates by
// the immediate dominators idom of NaiveDominators, and their field
// bytes: an Object[] of k elements has 8k.
func (g RandomGraph) NaiveRetained(idom []int) (objects, bytes []int64) {
	objects, bytes = make([]int64, len(idom)), make([]int64, len(idom))
	for x := range idom {
		if idom[x] == -2 {
			continue
		}
		for y := x; y >= 0; y = idom[y] {
			objects[y]++
			bytes[y] += int64(8 * len(g.Succ[x]))
		}
	}
	return objects, bytes
}

// RandomHeap writes and loads a heap of random shape: long chains (deep
// depth-first walks and many breadth-first levels), object arrays that
// list the same object more than once, big arrays (wide levels),
// instances of classes whose loader is an object of the heap (so that
// class objects are retained by their instances), statics, weak
// references, a few GC roots and, as a rule, unreachable objects and
// cycles.
func RandomHeap(t testing.TB, seed uint64) *model.Heap {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	n := 200 + rng.IntN(6000)
	return LoadSynthetic(t, func(w *hproftest.Writer) {
		objects := w.Class("[Ljava/lang/Object;", nil)
		reference := w.Class("java/lang/ref/Reference", nil,
			hproftest.Field{Name: "referent", Type: hproftest.TypeObject},
			hproftest.Field{Name: "queue", Type: hproftest.TypeObject})
		loaderClass := w.Class("Loader", nil, hproftest.Field{Name: "parent", Type: hproftest.TypeObject})
		ids := make([]hproftest.ID, n)
		for v := range ids {
			ids[v] = w.Alloc(32)
		}
		loader := ids[rng.IntN(n)]
		pick := func(v int) hproftest.ID {
			switch r := rng.IntN(10); {
			case r < 5 && v+1 < n:
				return ids[v+1] // a chain
			case r < 6:
				return 0
			case r < 7:
				return ids[rng.IntN(min(n, 8))] // a hub
			case r < 8 && v > 0:
				return ids[v-1-rng.IntN(min(v, 20))] // a nearby cycle
			}
			return ids[rng.IntN(n)]
		}
		var classes []*hproftest.Class
		for k := range 1 + rng.IntN(5) {
			fields := make([]hproftest.Field, 1+rng.IntN(3))
			for f := range fields {
				fields[f] = hproftest.Field{Name: fmt.Sprintf("f%d", f), Type: hproftest.TypeObject}
			}
			var statics []hproftest.Static
			if rng.IntN(2) == 0 {
				statics = append(statics, hproftest.Static{Name: "s", Value: hproftest.Ref(ids[rng.IntN(n)])})
			}
			classes = append(classes, w.DefineClass(hproftest.ClassSpec{
				Name: fmt.Sprintf("App%d", k), Fields: fields, Statics: statics, LoaderID: loader,
			}))
		}
		for v, id := range ids {
			switch r := rng.IntN(100); {
			case id == loader:
				w.InstanceWithID(id, loaderClass, hproftest.Ref(pick(v)))
			case r < 45:
				c := classes[rng.IntN(len(classes))]
				vals := make([]hproftest.Value, len(c.Fields))
				for f := range vals {
					vals[f] = hproftest.Ref(pick(v))
				}
				w.InstanceWithID(id, c, vals...)
			case r < 85:
				elems := make([]hproftest.ID, rng.IntN(6))
				for e := range elems {
					elems[e] = pick(v)
				}
				if len(elems) > 1 && rng.IntN(4) == 0 {
					elems[len(elems)-1] = elems[0]
				}
				w.ObjArrayDump(hproftest.ObjArrayDump{ID: id, ClassID: objects.ID, Elements: elems})
			case r < 88:
				elems := make([]hproftest.ID, 50+rng.IntN(400))
				for e := range elems {
					elems[e] = ids[rng.IntN(n)]
				}
				w.ObjArrayDump(hproftest.ObjArrayDump{ID: id, ClassID: objects.ID, Elements: elems})
			default:
				w.InstanceWithID(id, reference, hproftest.Ref(ids[rng.IntN(n)]), hproftest.Ref(pick(v)))
			}
		}
		for r := range 1 + rng.IntN(4) {
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: ids[rng.IntN(n)], JNIRef: hproftest.ID(r + 1)})
		}
	})
}

// WithParallelism runs fn with GOMAXPROCS procs and the parallel passes
// over all objects cut as small as they go, so that small heaps take the
// parallel paths, with many chunks.
func WithParallelism(procs int, fn func()) {
	defer func(procs, chunk int) {
		runtime.GOMAXPROCS(procs)
		parallel.ObjectChunk = chunk
	}(runtime.GOMAXPROCS(procs), parallel.ObjectChunk)
	parallel.ObjectChunk = 7
	fn()
}
