package heap

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testload"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestCollectionsHostileLinks: a wrapper that wraps itself, two that wrap
// each other, a ConcurrentHashMap whose segments field names no array
// and a Properties whose map is itself are measured (size 0) without a
// hang, a panic or a size counted twice.
func TestCollectionsHostileLinks(t *testing.T) {
	var self, a, b, chm, props hproftest.ID
	h := syntheticFile(t, func(w *hproftest.Writer) {
		obj := hproftest.Field{Type: hproftest.TypeObject}
		field := func(name string) hproftest.Field { f := obj; f.Name = name; return f }
		wrapper := w.Class("java/util/Collections$UnmodifiableCollection", nil, field("c"))
		concurrent := w.Class("java/util/concurrent/ConcurrentHashMap", nil, field("segments"), field("table"))
		properties := w.Class("java/util/Properties", nil, field("map"))
		self, a, b, chm, props = w.Alloc(16), w.Alloc(16), w.Alloc(16), w.Alloc(24), w.Alloc(16)
		w.InstanceWithID(self, wrapper, hproftest.Ref(self))
		w.InstanceWithID(a, wrapper, hproftest.Ref(b))
		w.InstanceWithID(b, wrapper, hproftest.Ref(a))
		w.InstanceWithID(chm, concurrent, hproftest.Ref(chm), hproftest.Ref(chm))
		w.InstanceWithID(props, properties, hproftest.Ref(props))
		for k, id := range []hproftest.ID{self, a, chm, props} {
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: id, JNIRef: hproftest.ID(k + 1)})
		}
	})
	var objs []model.ObjectIndex
	for _, id := range []hproftest.ID{self, a, b, chm, props} {
		objs = append(objs, analysistest.Lookup(t, h, id))
	}
	rows, err := MeasureCollection(h, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(objs) {
		t.Fatalf("%d of %d measured: %+v", len(rows), len(objs), rows)
	}
	for _, r := range rows {
		if r.Size != 0 || r.Capacity != 0 || r.WastedBytes != 0 {
			t.Errorf("%s %s: size %d capacity %d wasted %d, want 0", r.Class, r.ObjectID, r.Size, r.Capacity, r.WastedBytes)
		}
	}
	if _, err := Collections(h, CollectionOptions{Objects: true}); err != nil {
		t.Fatal(err)
	}
}

// syntheticFile writes a dump with write into a file and loads it with its
// objects and the file attached, so that values can be read again.
func syntheticFile(t *testing.T, write func(w *hproftest.Writer)) *model.Heap {
	t.Helper()
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{})
	w.BeginHeapDump()
	write(w)
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "synthetic.hprof")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return testload.Heap(t, path)
}
