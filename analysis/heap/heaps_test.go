package heap_test

import (
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// TestSummarizeHeaps divides the real Android dumps' objects among their
// heaps as a plain reader pass does, and the shallow bytes of the heaps
// add up to the dump's; a JVM dump has no heaps.
func TestSummarizeHeaps(t *testing.T) {
	for _, tc := range []struct {
		file  string
		heaps int
	}{
		{"leak_service_binder_ignored.hprof.gz", 2},
		{"test-dump-base.hprof.gz", 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := testshared.Path(t, "corpus", "android", tc.file)
			counts, classes := classCountsByHeap(t, path)
			objects := map[string]int64{}
			for heap, byClass := range counts {
				for _, n := range byClass {
					objects[heap] += n
				}
			}
			h := loadObjects(t, path)
			in := heap.Summarize(h, model.SizeJVM)
			if len(in.Heaps) != tc.heaps || len(objects) != tc.heaps {
				t.Fatalf("heaps %+v, the reader finds %d: %v", in.Heaps, len(objects), objects)
			}
			var bytes int64
			for _, hp := range in.Heaps {
				if hp.Objects != objects[hp.Name] || hp.ClassObjects != classes[hp.Name] {
					t.Errorf("heap %s: %d objects, %d class objects; the reader counts %d, %d",
						hp.Name, hp.Objects, hp.ClassObjects, objects[hp.Name], classes[hp.Name])
				}
				bytes += hp.ShallowBytes
			}
			if bytes != in.ShallowBytes {
				t.Errorf("the heaps hold %d bytes, the dump %d", bytes, in.ShallowBytes)
			}
		})
	}
	h := loadObjects(t, "../../testdata/jvm/jdk17-default.hprof.gz")
	if in := heap.Summarize(h, model.SizeJVM); in.Heaps != nil || h.HeapNames() != nil {
		t.Errorf("a JVM dump has heaps %v, %+v", h.HeapNames(), in.Heaps)
	}
}

// classCountsByHeap counts, with the record reader alone, the objects of
// each class (by Java name) in each heap of the dump at path: instances
// by their class, arrays by their array class or element type, and class
// dumps as java.lang.Class; classDumps counts each heap's class dumps
// alone. An object lies in the heap the last HEAP_DUMP_INFO before it
// names.
func classCountsByHeap(t *testing.T, path string) (counts map[string]map[string]int64, classDumps map[string]int64) {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := hprof.NewReader(f, hprof.Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	primName := map[hprof.Type]string{4: "boolean[]", 5: "char[]", 6: "float[]", 7: "double[]", 8: "byte[]", 9: "short[]", 10: "int[]", 11: "long[]"}
	strs := map[uint64]string{}
	className := map[uint64]string{}
	counts, classDumps = map[string]map[string]int64{}, map[string]int64{}
	current := model.NoHeap
	add := func(class string) {
		if counts[current] == nil {
			counts[current] = map[string]int64{}
		}
		counts[current][class]++
	}
	for r.Next() {
		rec := r.Record()
		switch {
		case rec.Sub == 0 && rec.Tag == hprof.TagUTF8:
			strs[rec.UTF8.ID] = string(rec.UTF8.Text)
		case rec.Sub == 0 && rec.Tag == hprof.TagLoadClass:
			className[rec.LoadClass.ClassID] = model.JavaClassName(strs[rec.LoadClass.NameID])
		case rec.Sub == hprof.SubHeapDumpInfo:
			current = strs[rec.HeapInfo.NameID]
		case rec.Sub == hprof.SubClassDump:
			add("java.lang.Class")
			classDumps[current]++
		case rec.Sub == hprof.SubInstanceDump:
			add(className[rec.Instance.ClassID])
		case rec.Sub == hprof.SubObjArrayDump:
			add(className[rec.ObjArray.ClassID])
		case rec.Sub == hprof.SubPrimArrayDump, rec.Sub == hprof.SubPrimArrayNoData:
			add(primName[rec.PrimArray.ElemType])
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return counts, classDumps
}

// TestHistogramByHeap checks the histogram of each heap, alone (Heaps)
// and side by side (ByHeap), against a plain reader pass's count of each
// class in each heap; the heaps' bytes add up to the whole histogram's.
func TestHistogramByHeap(t *testing.T) {
	for _, file := range []string{"leak_service_binder_ignored.hprof.gz", "test-dump-base.hprof.gz"} {
		t.Run(file, func(t *testing.T) {
			path := testshared.Path(t, "corpus", "android", file)
			want, _ := classCountsByHeap(t, path)
			h := loadObjects(t, path)
			whole, err := heap.Histogram(h, heap.HistoOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wholeBytes := map[string]int64{}
			for _, row := range whole.Rows {
				wholeBytes[row.Class] += row.ShallowBytes
			}
			divided, err := heap.Histogram(h, heap.HistoOptions{ByHeap: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(divided.HeapNames) != len(want) {
				t.Fatalf("heaps %v, the reader finds %v", divided.HeapNames, want)
			}
			got := map[string]map[string]int64{}
			dividedBytes := map[string]int64{}
			for _, row := range divided.Rows {
				for _, hc := range row.Heaps {
					if hc.Instances == 0 {
						continue
					}
					if got[hc.Heap] == nil {
						got[hc.Heap] = map[string]int64{}
					}
					got[hc.Heap][row.Class] += hc.Instances
					dividedBytes[row.Class] += hc.ShallowBytes
				}
			}
			for _, name := range divided.HeapNames {
				alone, err := h.SelectHeaps([]string{name})
				if err != nil {
					t.Fatal(err)
				}
				one, err := heap.Histogram(h, heap.HistoOptions{Heaps: alone})
				if err != nil {
					t.Fatal(err)
				}
				oneCounts := map[string]int64{}
				for _, row := range one.Rows {
					oneCounts[row.Class] += row.Instances
				}
				for class, n := range want[name] {
					if got[name][class] != n || oneCounts[class] != n {
						t.Errorf("heap %s, %s: %d side by side, %d alone; the reader counts %d", name, class, got[name][class], oneCounts[class], n)
					}
				}
				if len(got[name]) != len(want[name]) || len(oneCounts) != len(want[name]) {
					t.Errorf("heap %s: %d classes side by side, %d alone; the reader finds %d", name, len(got[name]), len(oneCounts), len(want[name]))
				}
			}
			for class, b := range wholeBytes {
				if dividedBytes[class] != b {
					t.Errorf("%s: the heaps hold %d bytes, the whole histogram %d", class, dividedBytes[class], b)
				}
			}
		})
	}
}

// TestTopLevelInHeaps checks the top of the dominator tree as seen from
// each heap of the LeakCanary dump against its definition, walked object
// by object: the reachable objects of the heap none of whose dominators
// lies in the heap.
func TestTopLevelInHeaps(t *testing.T) {
	path := testshared.Path(t, "corpus", "android", "leak_service_binder_ignored.hprof.gz")
	h := loadObjects(t, path)
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, heap := range h.HeapNames() {
		sel, err := h.SelectHeaps([]string{heap})
		if err != nil {
			t.Fatal(err)
		}
		var want []model.ObjectIndex
		for i := range h.NumObjects() {
			obj := model.ObjectIndex(i)
			if name, _ := h.HeapOf(obj); name != heap || !r.Reachable(obj) {
				continue
			}
			top := true
			for d := r.ImmediateDominator(obj); d != model.NoObject; d = r.ImmediateDominator(d) {
				if name, _ := h.HeapOf(d); name == heap {
					top = false
					break
				}
			}
			if top {
				want = append(want, obj)
			}
		}
		got := r.TopLevelIn(sel)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("heap %s: top %d objects, the definition gives %d", heap, len(got), len(want))
		}
	}
	if got, want := r.TopLevelIn(model.HeapSelection{}), r.TopLevel(); !slices.Equal(got, want) {
		t.Errorf("every heap: top %d objects, TopLevel %d", len(got), len(want))
	}
}

// loadObjects loads the dump at path with its objects.
func loadObjects(t *testing.T, path string) *model.Heap {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
