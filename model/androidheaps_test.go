package model_test

import (
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// dumpHeaps reads the dump at path with the record reader alone and
// returns the heap each object id was dumped in (the name of the last
// HEAP_DUMP_INFO before its CLASS_DUMP, INSTANCE_DUMP or array record),
// and the heap names in order of first appearance: what HeapOf and
// HeapNames should say, found without the model's builder.
func dumpHeaps(t *testing.T, path string) (map[uint64]string, []string) {
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
	heapOf := map[uint64]string{}
	var names []string
	current := ""
	for r.Next() {
		rec := r.Record()
		var id uint64
		switch {
		case rec.Sub == 0 && rec.Tag == hprof.TagUTF8:
			strs[rec.UTF8.ID] = string(rec.UTF8.Text)
			continue
		case rec.Sub == hprof.SubHeapDumpInfo:
			current = strs[rec.HeapInfo.NameID]
			if !slices.Contains(names, current) {
				names = append(names, current)
			}
			continue
		case rec.Sub == hprof.SubClassDump:
			id = rec.Class.ID
		case rec.Sub == hprof.SubInstanceDump:
			id = rec.Instance.ID
		case rec.Sub == hprof.SubObjArrayDump:
			id = rec.ObjArray.ID
		case rec.Sub == hprof.SubPrimArrayDump || rec.Sub == hprof.SubPrimArrayNoData:
			id = rec.PrimArray.ID
		default:
			continue
		}
		heapOf[id] = current
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return heapOf, names
}

// TestAndroidHeaps checks every object's heap on the two real Android
// dumps against a plain reader pass over them: LeakCanary's (Dalvik,
// heaps zygote and app) and ahat's baseline dump (ART, heap app only).
func TestAndroidHeaps(t *testing.T) {
	for _, tc := range []struct {
		file  string
		heaps []string
	}{
		{"leak_service_binder_ignored.hprof.gz", []string{"app", "zygote"}},
		{"test-dump-base.hprof.gz", []string{"app"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := testshared.Path(t, "corpus", "android", tc.file)
			want, wantNames := dumpHeaps(t, path)
			f, err := input.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []*model.Heap{h, throughIndex(t, h)} {
				if got := h.HeapNames(); !slices.Equal(got, wantNames) {
					t.Errorf("HeapNames() = %q, the reader finds %q", got, wantNames)
				}
				if got := slices.Sorted(slices.Values(h.HeapNames())); !slices.Equal(got, tc.heaps) {
					t.Errorf("heaps %q, want %q", got, tc.heaps)
				}
				counts := map[string]int{}
				for i := range h.NumObjects() {
					o := model.ObjectIndex(i)
					id := h.ObjectID(o)
					name, ok := h.HeapOf(o)
					w, known := want[id]
					if !known {
						t.Fatalf("object %#x: the reader finds no record of it", id)
					}
					if !ok || name != w {
						t.Fatalf("object %#x: HeapOf = %q, %v; the reader finds it in %q", id, name, ok, w)
					}
					counts[name]++
				}
				wantCounts := map[string]int{}
				for _, name := range want {
					wantCounts[name]++
				}
				for _, name := range tc.heaps {
					if counts[name] != wantCounts[name] || counts[name] == 0 {
						t.Errorf("heap %s: %d objects, the reader counts %d", name, counts[name], wantCounts[name])
					}
				}
			}
		})
	}
}

// throughIndex writes h into an index and returns the heap read back
// from it, so that the heaps asserted are those an index keeps.
func throughIndex(t *testing.T, h *model.Heap) *model.Heap {
	t.Helper()
	got, err := model.RoundTrip(t, h)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
