package model

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/model/store"
)

// TestIndexRoundTrip writes JVM fixtures into an index and reads them back:
// every object's id, class, length, references and id lookup, the
// classes, roots and threads are those of the heap read from the dump.
func TestIndexRoundTrip(t *testing.T) {
	for _, name := range []string{"jdk17-default.hprof.gz", "jdk17-nocoops.hprof.gz", "jdk25-coh.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			h := loadFixture(t, name)
			dir := t.TempDir()
			id := store.Identity{Content: 1}
			w, err := store.Create(filepath.Join(dir, "x"+store.Suffix), id, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := h.WriteIndex(w); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			ix, err := store.Open(filepath.Join(dir, "x"+store.Suffix), id)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			got, err := ReadIndex(ix)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumObjects() != h.NumObjects() || got.NumRefs() != h.NumRefs() {
				t.Fatalf("%d objects, %d references; want %d, %d", got.NumObjects(), got.NumRefs(), h.NumObjects(), h.NumRefs())
			}
			for i := range h.NumObjects() {
				o := ObjectIndex(i)
				if got.ObjectID(o) != h.ObjectID(o) || got.ClassOf(o) != h.ClassOf(o) || got.ArrayLength(o) != h.ArrayLength(o) ||
					!reflect.DeepEqual(got.Refs(o), h.Refs(o)) || got.offsets[o] != h.offsets[o] {
					t.Fatalf("object %d differs", i)
				}
				if k, ok := got.Lookup(h.ObjectID(o)); !ok || k != o {
					t.Fatalf("Lookup(0x%x) = %d, %v; want %d", h.ObjectID(o), k, ok, o)
				}
			}
			if _, ok := got.Lookup(h.ObjectID(ObjectIndex(h.NumObjects()-1)) + 1); ok {
				t.Error("Lookup finds an id past the last object")
			}
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"classes", got.Classes, h.Classes}, {"roots", got.Roots, h.Roots}, {"threads", got.Threads, h.Threads},
				{"referents", got.Referents(), h.Referents()}, {"anomalies", got.Anomalies, h.Anomalies},
				{"layout", got.Layout, h.Layout}, {"source", got.Source, h.Source},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s differ", c.what)
				}
			}
			for c := range h.Classes {
				if got.ClassBytes(ClassIndex(c), SizeJVM) != h.ClassBytes(ClassIndex(c), SizeJVM) {
					t.Errorf("class %s: %d bytes, want %d", h.Classes[c].Name, got.ClassBytes(ClassIndex(c), SizeJVM), h.ClassBytes(ClassIndex(c), SizeJVM))
				}
			}
		})
	}
}

// TestLabelsAtOffsets reads the labeled references of every object at its
// offset, in a plain file and in the JVM's multi-member -gz file, and by
// streaming the dump: they are the same.
func TestLabelsAtOffsets(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "heap.hprof")
	unzip(t, filepath.Join("..", "testdata", "jvm", "jdk17-default.hprof.gz"), plain)
	for _, path := range []string{plain, filepath.Join("..", "testdata", "jvm", "jdk17-gz.hprof.gz")} {
		h, err := loadPath(t, path)
		if err != nil {
			t.Fatal(err)
		}
		if h.offsets == nil {
			t.Fatalf("%s: no offsets recorded", path)
		}
		if filepath.Ext(path) == ".gz" && !checkpointsDense(h.checkpoints) {
			t.Fatalf("%s: %d gzip checkpoints, not dense enough to decode single objects", path, len(h.checkpoints))
		}
		all := make([]ObjectIndex, h.NumObjects())
		for i := range all {
			all[i] = ObjectIndex(i)
		}
		sample := all[:0:0]
		for i := 0; i < len(all); i += 97 {
			sample = append(sample, all[i])
		}
		at, err := ReadLabels(h, path, sample)
		if err != nil {
			t.Fatal(err)
		}
		streamed := *h
		streamed.offsets = nil
		want, err := ReadLabels(&streamed, path, sample)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(at, want) {
			t.Errorf("%s: labels at offsets differ from the streamed ones (%d and %d objects)", path, len(at), len(want))
		}
	}
}

func unzip(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
}
