package analysis_test

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// heapCounts counts, with the record reader alone, the object records
// (class dumps, instances, arrays) and the class dumps that follow each
// heap's HEAP_DUMP_INFO in the dump at path.
func heapCounts(t *testing.T, path string) (objects, classes map[string]int64) {
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
	strs := map[uint64]string{}
	objects, classes = map[string]int64{}, map[string]int64{}
	current := analysis.NoHeap
	for r.Next() {
		rec := r.Record()
		switch {
		case rec.Sub == 0 && rec.Tag == hprof.TagUTF8:
			strs[rec.UTF8.ID] = string(rec.UTF8.Text)
		case rec.Sub == hprof.SubHeapDumpInfo:
			current = strs[rec.HeapInfo.NameID]
		case rec.Sub == hprof.SubClassDump:
			classes[current]++
			objects[current]++
		case rec.Sub == hprof.SubInstanceDump, rec.Sub == hprof.SubObjArrayDump,
			rec.Sub == hprof.SubPrimArrayDump, rec.Sub == hprof.SubPrimArrayNoData:
			objects[current]++
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return objects, classes
}

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
			objects, classes := heapCounts(t, path)
			f, err := input.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
			if err != nil {
				t.Fatal(err)
			}
			in := analysis.Summarize(h, model.SizeJVM)
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
	f, err := input.Open("../testdata/jvm/jdk17-default.hprof.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	if in := analysis.Summarize(h, model.SizeJVM); in.Heaps != nil || h.HeapNames() != nil {
		t.Errorf("a JVM dump has heaps %v, %+v", h.HeapNames(), in.Heaps)
	}
}
