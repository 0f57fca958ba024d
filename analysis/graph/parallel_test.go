package analysis

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// randomHeap writes and loads a heap of random shape: long chains (deep
// depth-first walks and many breadth-first levels), object arrays that
// list the same object more than once, big arrays (wide levels),
// instances of classes whose loader is an object of the heap (so that
// class objects are retained by their instances), statics, weak
// references, a few GC roots and, as a rule, unreachable objects and
// cycles.
func randomHeap(t testing.TB, seed uint64) *model.Heap {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	n := 200 + rng.IntN(6000)
	return loadSynthetic(t, func(w *hproftest.Writer) {
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

// fixtureHeaps loads a few of the JVM's heap dumps in testdata.
func fixtureHeaps(t *testing.T) map[string]*model.Heap {
	t.Helper()
	out := map[string]*model.Heap{}
	for _, name := range []string{"jvm/jdk17-default.hprof.gz", "jvm/jdk25-coh.hprof.gz", "agent/heap-binary.hprof.gz"} {
		f, err := input.Open(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[name] = h
	}
	return out
}

// withParallelism runs fn with GOMAXPROCS procs and the parallel passes
// cut as small as they go, so that small graphs take the parallel paths,
// with many chunks and levels.
func withParallelism(procs int, fn func()) {
	defer func(procs, chunk, level int) {
		runtime.GOMAXPROCS(procs)
		objectChunk, parallelLevel = chunk, level
	}(runtime.GOMAXPROCS(procs), objectChunk, parallelLevel)
	objectChunk, parallelLevel = 7, 2
	fn()
}

// compareRetention checks every object of r against the serial reference.
func compareRetention(t *testing.T, what string, h *model.Heap, r *Retention, want serialRetention) {
	t.Helper()
	errors := 0
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if r.Reachable(obj) != want.reachable[i] {
			t.Errorf("%s: object %d reachable %v, want %v", what, i, r.Reachable(obj), want.reachable[i])
			errors++
		} else if want.reachable[i] {
			if d := r.ImmediateDominator(obj); d != want.idom[i] {
				t.Errorf("%s: object %d: immediate dominator %d, want %d", what, i, d, want.idom[i])
				errors++
			}
			if c, b := r.RetainedObjects(obj), r.RetainedBytes(obj); c != want.retainedCount[i] || b != want.retainedBytes[i] {
				t.Errorf("%s: object %d retains %d objects, %d bytes; want %d, %d", what, i, c, b, want.retainedCount[i], want.retainedBytes[i])
				errors++
			}
		}
		if errors > 10 {
			t.Fatalf("%s: giving up", what)
		}
	}
}

// TestRetentionMatchesSerial compares the dominator tree and retained
// sizes with those of the serial implementation they replaced, object by
// object, on random heaps and the JVM's fixtures, with one and four
// goroutines.
func TestRetentionMatchesSerial(t *testing.T) {
	heaps := map[string]*model.Heap{}
	for seed := range uint64(40) {
		heaps[fmt.Sprintf("random %d", seed)] = randomHeap(t, seed)
	}
	if !testing.Short() {
		for name, h := range fixtureHeaps(t) {
			heaps[name] = h
		}
	}
	for name, h := range heaps {
		for _, o := range []RetentionOptions{{Size: model.SizeJVM}, {Size: model.SizeFields, KeepUnreachable: true}} {
			want := serialComputeRetention(h, o)
			for _, procs := range []int{1, 4} {
				withParallelism(procs, func() {
					r, err := ComputeRetention(h, o)
					if err != nil {
						t.Fatal(err)
					}
					compareRetention(t, fmt.Sprintf("%s, %+v, %d procs", name, o, procs), h, r, want)
				})
			}
		}
	}
}

// TestShortestPathTreeMatchesSerial compares the breadth-first tree with
// the one of the serial first-in first-out search it replaced, with and
// without referents, with one and four goroutines.
func TestShortestPathTreeMatchesSerial(t *testing.T) {
	heaps := map[string]*model.Heap{}
	for seed := range uint64(40) {
		heaps[fmt.Sprintf("random %d", seed)] = randomHeap(t, seed)
	}
	if !testing.Short() {
		for name, h := range fixtureHeaps(t) {
			heaps[name] = h
		}
	}
	for name, h := range heaps {
		for _, weak := range []bool{false, true} {
			want := serialShortestPathTree(h, weak)
			for _, procs := range []int{1, 4} {
				withParallelism(procs, func() {
					got := shortestPathTree(h, weak)
					if !slices.Equal(got, want) {
						k := 0
						for got[k] == want[k] {
							k++
						}
						t.Errorf("%s, weak %v, %d procs: object %d has parent %d, want %d", name, weak, procs, k, got[k], want[k])
					}
				})
			}
		}
	}
}
