package oql

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// The conventions under which the counts of MAT's OQLTest differ from
// hprofctl's (docs/mat-conventions.md), each with MAT's rule where MAT's
// count can be computed from ours.
var (
	whyDominators = &matConvention{why: "MAT builds its dominator tree over a graph that also follows Reference.referent; hprofctl's is the strong graph, so what dominates what differs for a few objects"}
	whyRoots      = &matConvention{
		why: "MAT hangs the Java frame, JNI local, native stack and thread block roots of a thread it knows under the thread, and counts them as no GC roots (Pass1Parser.readGCWithThreadContext, HprofParserHandlerImpl.addGCRoot)",
		mat: matGCRootRows,
	}
)

// whyLoaderOf is MAT's synthetic class loader: MAT adds an object at 0x0,
// an instance of java.lang.ClassLoader the dump lacks, as the loader of
// the bootstrap classes (HprofParserHandlerImpl.beforePass2). MAT's count
// has it when MAT keeps it (it keeps a class of the bootstrap loader,
// which references it) and the query takes the instances of
// java.lang.ClassLoader: classQuery, the class objects the query's FROM
// names narrowed to java.lang.ClassLoader, gives one row then.
func whyLoaderOf(classQuery string) *matConvention {
	return &matConvention{
		why: "MAT adds a system class loader at 0x0, an instance of java.lang.ClassLoader the dump lacks",
		mat: func(t *testing.T, d *testDump, rows [][]Value) int {
			t.Helper()
			res, err := d.run(t, classQuery, Options{Reachable: true})
			if err != nil {
				t.Fatalf("%s: %v", classQuery, err)
			}
			if len(res.Rows) == 1 && matKeepsSystemLoader(d.h) {
				return len(rows) + 1
			}
			return len(rows)
		},
	}
}

// matKeepsSystemLoader reports whether MAT keeps its synthetic loader at
// 0x0: whether it keeps a class of the bootstrap loader.
func matKeepsSystemLoader(h *model.Heap) bool {
	kept := graph.MATKept(h)
	for _, c := range h.Classes {
		if c.Loader == 0 && c.Object != model.NoObject && kept.Has(c.Object) {
			return true
		}
	}
	return false
}

// matGCRootRows counts the rows whose object MAT counts as a GC root:
// one with a root MAT does not hang under a thread (matGCRoots).
func matGCRootRows(t *testing.T, d *testDump, rows [][]Value) int {
	t.Helper()
	roots := matGCRoots(d.h)
	n := 0
	for _, row := range rows {
		v := unwrap(row[0])
		if v.Kind != KindObject {
			t.Fatalf("a row of %s, not an object", describe(v))
		}
		if o, ok := d.h.Lookup(v.ID); ok && roots[o] {
			n++
		}
	}
	return n
}

// matGCRoots marks the objects MAT counts as GC roots. MAT reads a Java
// frame, JNI local, native stack or thread block root as a local of its
// thread when the dump has given that thread's ROOT_THREAD_OBJ before it,
// and makes the thread reference the object instead of making it a GC
// root; every other root record makes its object a GC root. The model
// keeps no record order; in the dumps these tests read, each
// ROOT_THREAD_OBJ precedes the locals of its thread.
func matGCRoots(h *model.Heap) map[model.ObjectIndex]bool {
	threadObjects := map[uint64]bool{}
	for _, rt := range h.Roots {
		if rt.Kind == model.RootThreadObject {
			threadObjects[rt.ID] = true
		}
	}
	roots := map[model.ObjectIndex]bool{}
	for _, rt := range h.Roots {
		switch rt.Kind {
		case model.RootJavaFrame, model.RootJNILocal, model.RootNativeStack, model.RootThreadBlock:
			if rt.Thread >= 0 && threadObjects[h.Threads[rt.Thread].ID] {
				continue
			}
		}
		if rt.Object != model.NoObject {
			roots[rt.Object] = true
		}
	}
	return roots
}

// TestMATThreadLocals names the objects of sun_jdk5_64bit that only
// roots MAT hangs under a thread hold (the Java frame and JNI local roots
// of the threads of serials 4 and 6, after their ROOT_THREAD_OBJ
// records): the 8 of the
// 362 objects with a GC root MAT does not count (OQLTest.java:1440).
func TestMATThreadLocals(t *testing.T) {
	h := loadMATDump(t, matDefault).h
	mat := matGCRoots(h)
	want := map[uint64]bool{0x17c10340: true, 0x17c10c78: true, 0x17c201c8: true, 0x17c201e8: true,
		0x17c10248: true, 0x17c1e2a8: true, 0x17c1e2c0: true, 0x17c1e270: true}
	got := map[uint64]bool{}
	for _, rt := range h.Roots {
		if o := rt.Object; o != model.NoObject && !mat[o] {
			got[h.ObjectID(o)] = true
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d objects held only by roots MAT hangs under a thread, want %d", len(got), len(want))
	}
	for id := range got {
		if !want[id] {
			t.Errorf("0x%x is held only by roots MAT hangs under a thread", id)
		}
	}
}

// TestMATDroppedClasses: of the 411 classes of sun_jdk5_64bit (its
// CLASS_DUMP records) MAT counts 383 (OQLTest.java:760). The dump marks
// 409 system classes (ROOT_STICKY_CLASS); MAT roots only those and drops
// the classes nothing it keeps references, while hprofctl's retention
// roots every class of the bootstrap loader. The 28 classes apart are
// bootstrap array classes with no sticky root.
func TestMATDroppedClasses(t *testing.T) {
	const matClasses = 383
	h := loadMATDump(t, matDefault).h
	r := loadMATDump(t, matDefault).r
	kept := graph.MATKept(h)
	sticky := map[model.ObjectIndex]bool{}
	for _, rt := range h.Roots {
		if rt.Kind == model.RootStickyClass {
			sticky[rt.Object] = true
		}
	}
	classes, dropped := 0, 0
	for c := range h.Classes {
		cl := &h.Classes[c]
		if cl.Object == model.NoObject {
			continue
		}
		classes++
		if !r.Reachable(cl.Object) {
			t.Errorf("%s: not reached by the retention graph", cl.Name)
		}
		if kept.Has(cl.Object) {
			continue
		}
		dropped++
		if cl.Loader != 0 || !cl.IsArray() || sticky[cl.Object] {
			t.Errorf("MAT drops %s (loader 0x%x, sticky root %v), not a bootstrap array class without a sticky root", cl.Name, cl.Loader, sticky[cl.Object])
		}
	}
	if classes != 411 || classes-dropped != matClasses {
		t.Errorf("%d classes, MAT's rule keeps %d; MAT %d of 411", classes, classes-dropped, matClasses)
	}
}
