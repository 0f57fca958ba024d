package model_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// FuzzLoad lives in the external test package of model so that it can run
// the analyses too (package analysis imports model, so a test inside
// package model could not import it).

// fuzzDeadline is how long loading one input and deriving everything from
// it may take before FuzzLoad calls it a hang. Inputs are small: an
// answer takes milliseconds.
const fuzzDeadline = 20 * time.Second

// Allocation bounds for one input of FuzzLoad: a fixed part (the input's
// and the readers' buffers, the analyses' tables) and a part per input
// byte, far above what any honest input needs, far below what a length
// field that lies would cost.
const (
	fuzzFixedAlloc   = 64 << 20
	fuzzAllocPerByte = 4 << 10
)

// realSeed is a small real dump of a public project, seeding FuzzLoad
// when ../shared/corpus is present.
var realSeed = filepath.Join("..", "..", "shared", "corpus", "agourlay_hprof-slurp", "hprof-32.bin")

// FuzzLoad loads arbitrary bytes as a dump, with its objects, and derives
// from the heap what the commands do: every object's class, references
// and shallow size in both size modes, every class's chain and total
// size, info, the histogram, the dominator tree and what reads it
// (dominators, leaks, stack-root sites), retainer paths with their
// labels, threads and the heap's lock state. Nothing may panic, every
// superclass chain must end, sizes must not be negative, and an input
// must not take longer than fuzzDeadline nor allocate beyond the bounds.
func FuzzLoad(f *testing.F) {
	for _, seed := range fuzzLoadSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "dump")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("panic: %v\n%s", r, debug.Stack())
				}
			}()
			deriveAll(t, path)
		}()
		select {
		case <-done:
		case <-time.After(fuzzDeadline):
			t.Fatalf("no answer within %v for %d bytes", fuzzDeadline, len(data))
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > fuzzFixedAlloc+fuzzAllocPerByte*uint64(len(data)) {
			t.Fatalf("%d bytes allocated for %d bytes of input", alloc, len(data))
		}
	})
}

// fuzzLoadSeeds are dumps written with hproftest (the superclass loops
// and the invalid superclasses of the tests, dumps shaped like real
// ones), the ASCII loop, the ASCII fixture of the repository and, when
// present, a real dump.
func fuzzLoadSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{[]byte(asciiLoop)}
	for _, idSize := range []int{4, 8} {
		seeds = append(seeds, loopDump(f, idSize, false), loopDump(f, idSize, true))
		var buf bytes.Buffer
		if _, err := hproftest.WriteRealistic(&buf, 64<<10, 1, idSize); err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, buf.Bytes())
	}
	data, _, _ := writeInvalidSupers(f)
	seeds = append(seeds, data)
	for _, path := range []string{filepath.Join("..", "testdata", "ascii", "jvmti.txt"), realSeed} {
		in, err := input.Open(path)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(in)
		in.Close()
		if err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// asciiLoop is an hprof agent ASCII HEAP DUMP whose CLS lines name the
// superclasses A → B → C → B, with two instances of A.
const asciiLoop = "JAVA PROFILE 1.0.1, created Sat Mar 27 10:51:47 2021\n\n" +
	"Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n\n" +
	"\n--------\n\n" +
	"HEAP DUMP BEGIN (2 objects, 48 bytes) Sat Mar 27 10:51:58 2021\n" +
	"ROOT 50001018 (kind=<JNI global ref>, id=1f, trace=0)\n" +
	"CLS 500000c0 (name=C, trace=0)\n\tsuper\t\t500000b0\n" +
	"CLS 500000b0 (name=B, trace=0)\n\tsuper\t\t500000c0\n" +
	"CLS 500000a0 (name=A, trace=0)\n\tsuper\t\t500000b0\n" +
	"OBJ 50001000 (sz=24, trace=0, class=A@500000a0)\n" +
	"OBJ 50001018 (sz=24, trace=0, class=A@500000a0)\n\tc\t\t50001000\n" +
	"HEAP DUMP END\n"

// loopDump writes a dump whose superclass links loop, A → A (selfLoop) or
// A → B → C → B, with two instances of A, one a JNI global root
// referencing the other.
func loopDump(tb testing.TB, idSize int, selfLoop bool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: idSize})
	w.BeginHeapDump()
	ref := func(name string) []hproftest.FieldEntry {
		return []hproftest.FieldEntry{{NameID: w.Name(name), Type: hproftest.TypeObject}}
	}
	a := w.DeclareClass(hproftest.ClassSpec{Name: "A", Fields: []hproftest.Field{{Name: "a", Type: hproftest.TypeObject}}})
	x, y := w.Alloc(32), w.Alloc(32)
	if selfLoop {
		w.ClassDump(hproftest.ClassDump{ID: a.ID, SuperID: a.ID, Fields: ref("a")})
		w.InstanceWithID(x, a, hproftest.Ref(0))
		w.InstanceWithID(y, a, hproftest.Ref(x))
	} else {
		c := w.DeclareClass(hproftest.ClassSpec{Name: "C", Fields: []hproftest.Field{{Name: "c", Type: hproftest.TypeObject}}})
		b := w.DeclareClass(hproftest.ClassSpec{Name: "B", Super: c, Fields: []hproftest.Field{{Name: "b", Type: hproftest.TypeInt}}})
		w.ClassDump(hproftest.ClassDump{ID: c.ID, SuperID: b.ID, Fields: ref("c")})
		w.DumpClass(b)
		w.ClassDump(hproftest.ClassDump{ID: a.ID, SuperID: b.ID, Fields: ref("a")})
		payload := func(vals ...hproftest.Value) []byte { return hproftest.AppendValues(nil, idSize, vals...) }
		w.InstanceDump(hproftest.InstanceDump{ID: x, ClassID: a.ID, Fields: payload(hproftest.Ref(0), hproftest.Int(1), hproftest.Ref(0))})
		w.InstanceDump(hproftest.InstanceDump{ID: y, ClassID: a.ID, Fields: payload(hproftest.Ref(0), hproftest.Int(2), hproftest.Ref(x))})
	}
	w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: y, JNIRef: 1})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// deriveAll loads the dump at path and derives from it what the commands
// do, failing t where an invariant breaks.
func deriveAll(t *testing.T, path string) {
	in, err := input.Open(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer in.Close()
	h, err := model.Load(in, model.LoadOptions{Dump: -1, Objects: true, StringValues: true})
	if err != nil {
		return
	}
	dumpfile.Attach(h, path)
	modes := []model.SizeMode{model.SizeJVM, model.SizeFields}
	for c := range h.Classes {
		last := model.ClassIndex(c)
		for k := range h.Supers(model.ClassIndex(c)) {
			last = k
		}
		if h.Classes[last].Super != model.NoClass {
			t.Errorf("the superclass chain of class %d (%s) does not end", c, h.Classes[c].Name)
			return
		}
		for _, m := range modes {
			if n := h.ClassBytes(model.ClassIndex(c), m); n < 0 {
				t.Errorf("class %s: %d bytes in mode %d", h.Classes[c].Name, n, m)
			}
		}
	}
	n := h.NumObjects()
	var strs, all []model.ObjectIndex
	for i := range n {
		obj := model.ObjectIndex(i)
		if c := h.ClassOf(obj); c != model.NoClass && int(c) >= len(h.Classes) {
			t.Errorf("object %d: class %d of %d", i, c, len(h.Classes))
			return
		} else if c != model.NoClass && h.Classes[c].Name == "java.lang.String" {
			strs = append(strs, obj)
		}
		for _, r := range h.Refs(obj) {
			if int(r) >= n {
				t.Errorf("object %d references object %d of %d", i, r, n)
				return
			}
		}
		for _, m := range modes {
			if s := h.ShallowBytes(obj, m); s < 0 {
				t.Errorf("object 0x%x: %d bytes in mode %d", h.ObjectID(obj), s, m)
			}
		}
		all = append(all, obj)
	}
	for _, m := range modes {
		heap.Summarize(h, m)
		if _, err := heap.Histogram(h, heap.HistoOptions{Size: m}); err != nil {
			t.Errorf("histogram: %v", err)
		}
		// One tree per mode: the fields one keeps the unreachable objects.
		r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: m, KeepUnreachable: m == model.SizeFields})
		if err != nil {
			t.Errorf("retention: %v", err)
			return
		}
		heap.Dominators(h, r, heap.DominatorOptions{Top: 10, Children: 3})
		heap.Dominators(h, r, heap.DominatorOptions{Class: regexp.MustCompile("."), ByClass: true})
		heap.FindLeaks(h, r, heap.LeakOptions{Threshold: 0.1, Classes: 3})
		_, _ = profile.SitesFromRoots(h, r, profile.SiteOptions{Size: m})
		_, _ = profile.SitesFromHeap(h, h.Profile(), profile.SiteOptions{Size: m})
	}
	_, _ = profile.SitesFromProfile(h.Profile(), profile.SiteOptions{})
	paths := graph.ShortestPaths(h, graph.RetainerOptions{Class: regexp.MustCompile("."), Paths: 2})
	labels, _ := model.ReadLabels(h, all)
	names, _ := model.ReadStrings(h, strs)
	heap.DescribePaths(h, paths, true, labels, names)
	_, _ = heap.CountStrings(h, model.HeapSelection{})
	locks, err := threads.ReadHeapLocks(h)
	if err != nil {
		locks = nil
	}
	threads.ThreadsFromHeap(h, locks, 0)
	if locks != nil {
		threads.HeapDeadlocks(locks)
	}
}
