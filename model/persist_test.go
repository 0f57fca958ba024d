package model

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/hprofctl/hprofctl/model/store"
)

// TestIndexRoundTrip writes JVM fixtures into an index and reads them back:
// every object's id, class, length, references and id lookup, the
// classes, roots and threads are those of the heap read from the dump.
func TestIndexRoundTrip(t *testing.T) {
	for _, name := range []string{"jdk17-default.hprof.gz", "jdk17-nocoops.hprof.gz", "jdk25-coh.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			h := loadFixture(t, name)
			got, err := roundTrip(t, h)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumObjects() != h.NumObjects() || got.NumRefs() != h.NumRefs() {
				t.Fatalf("%d objects, %d references; want %d, %d", got.NumObjects(), got.NumRefs(), h.NumObjects(), h.NumRefs())
			}
			for i := range h.NumObjects() {
				o := ObjectIndex(i)
				if got.ObjectID(o) != h.ObjectID(o) || got.ClassOf(o) != h.ClassOf(o) || got.ArrayLength(o) != h.ArrayLength(o) ||
					!reflect.DeepEqual(got.Refs(o), h.Refs(o)) || got.recordOffset(o) != h.recordOffset(o) {
					t.Fatalf("object %d differs", i)
				}
				if k, ok := got.Lookup(h.ObjectID(o)); !ok || k != o {
					t.Fatalf("Lookup(0x%x) = %d, %v; want %d", h.ObjectID(o), k, ok, o)
				}
			}
			n := ObjectIndex(h.NumObjects())
			for _, r := range [][2]ObjectIndex{{0, n}, {3, 700}, {n - 5, n}} {
				for _, heap := range []*Heap{got, h} {
					next := r[0]
					heap.EachRefs(r[0], r[1], func(i ObjectIndex, refs []ObjectIndex) {
						if i != next || !slices.Equal(refs, h.Refs(i)) {
							t.Fatalf("EachRefs(%d, %d) gave object %d with %v; want object %d with %v", r[0], r[1], i, refs, next, h.Refs(next))
						}
						next++
					})
					if next != r[1] {
						t.Fatalf("EachRefs(%d, %d) stopped at %d", r[0], r[1], next)
					}
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

// roundTrip writes h into an index and returns what ReadIndex reads back.
func roundTrip(t *testing.T, h *Heap) (*Heap, error) {
	t.Helper()
	return ReadIndex(indexOf(t, h))
}

// indexOf writes h into an index and opens it.
func indexOf(t *testing.T, h *Heap) *store.Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x"+store.Suffix)
	id := store.Identity{Content: 1}
	w, err := store.Create(path, id, 0o600)
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
	ix, err := store.Open(path, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestIndexOffsetsRunPerObject keeps record offsets whose high 32 bits
// change from each object to the next (one run per object in memory): the
// index holds them all and gives them back.
func TestIndexOffsetsRunPerObject(t *testing.T) {
	h := loadFixture(t, "jdk17-default.hprof.gz")
	n := h.NumObjects()
	offsets := splitTable{low: make([]uint32, n)}
	want := make([]int64, n)
	for i := range n {
		want[i] = h.recordOffset(ObjectIndex(i)) + int64(i%2)<<32
		offsets.set(i, uint64(want[i]))
	}
	h.offsets = &offsets
	got, err := roundTrip(t, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if o := got.recordOffset(ObjectIndex(i)); o != want[i] {
			t.Fatalf("object %d: offset %d, want %d", i, o, want[i])
		}
	}
}

// TestIndexInconsistent writes indexes whose sections are each whole and
// checksummed but disagree with the others about the objects: ReadIndex
// reports each as corrupt.
func TestIndexInconsistent(t *testing.T) {
	h := loadFixture(t, "jdk17-default.hprof.gz")
	n := h.NumObjects()
	if n%64 == 0 {
		t.Fatalf("%d objects fill the last word of array bits", n)
	}
	withBit := func(words []uint64, i int) []uint64 {
		words = slices.Clone(words)
		words[i/64] |= 1 << (i % 64)
		return words
	}
	firstNonArray := 0
	for h.Classes[h.ClassOf(ObjectIndex(firstNonArray))].IsArray() {
		firstNonArray++
	}
	for _, tc := range []struct {
		name   string
		tamper func(*Heap)
	}{
		{"an array length missing", func(c *Heap) { c.arrays.lengths = c.arrays.lengths[:len(c.arrays.lengths)-1] }},
		{"an array length too many", func(c *Heap) { c.arrays.lengths = append(slices.Clone(c.arrays.lengths), 7) }},
		{"an object more marked as array", func(c *Heap) { c.arrays.isArray = withBit(c.arrays.isArray, firstNonArray) }},
		{"an array bit past the last object", func(c *Heap) { c.arrays.isArray = withBit(c.arrays.isArray, n) }},
		{"a word of array bits missing", func(c *Heap) { c.arrays.isArray = c.arrays.isArray[:len(c.arrays.isArray)-1] }},
		{"reference starts past the references", func(c *Heap) {
			c.refStart = slices.Clone(c.refStart)
			c.refStart[n] = uint32(len(c.refs) + 1)
		}},
		{"reference starts out of order", func(c *Heap) {
			c.refStart = slices.Clone(c.refStart)
			k := slices.IndexFunc(c.refStart, func(v uint32) bool { return v > 0 })
			c.refStart[k+1] = c.refStart[k] - 1
		}},
		{"reference starts not from 0", func(c *Heap) {
			c.refStart = slices.Clone(c.refStart)
			c.refStart[0] = 1
		}},
		{"heap switches out of order", func(c *Heap) {
			c.heapNames, c.switchAt, c.switchHeap = []string{"zygote", "app"}, []int64{90, 40}, []uint32{0, 1}
		}},
		{"a heap switch to no heap", func(c *Heap) {
			c.heapNames, c.switchAt, c.switchHeap = []string{"app"}, []int64{40}, []uint32{1}
		}},
		{"a heap switch without its heap", func(c *Heap) {
			c.heapNames, c.switchAt, c.switchHeap = []string{"app"}, []int64{40, 90}, []uint32{0}
		}},
	} {
		c := *h
		tc.tamper(&c)
		if _, err := roundTrip(t, &c); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: %v, want a corrupt index", tc.name, err)
		}
	}
}

// TestLabelsAtOffsets reads the labeled references of every object at its
// offset, in a plain file and in the JVM's multi-member -gz file, and by
// streaming the dump: they are the same.
func TestLabelsAtOffsets(t *testing.T) {
	for _, path := range readAtOffsets(t) {
		h, err := loadPath(t, path)
		if err != nil {
			t.Fatal(err)
		}
		if h.offsets == nil {
			t.Fatalf("%s: no offsets recorded", path)
		}
		if filepath.Ext(path) == ".gz" && !h.ObjectReaderOptions().RandomAccess() {
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
		at, err := ReadLabels(h, sample)
		if err != nil {
			t.Fatal(err)
		}
		streamed := *h
		streamed.offsets = nil
		want, err := ReadLabels(&streamed, sample)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(at, want) {
			t.Errorf("%s: labels at offsets differ from the streamed ones (%d and %d objects)", path, len(at), len(want))
		}
	}
}

// TestStepLabelsFromClasses: the steps of paths, labeled by
// ReadStepLabels on the heap an index gives without its objects
// (ReadIndexClasses), reading the records at the steps' offsets, are
// labeled as ReadLabels labels each object's first reference to the
// step's target, in a plain file and in the JVM's -gz file; a step whose
// object holds no reference to its target gets no label.
func TestStepLabelsFromClasses(t *testing.T) {
	for _, path := range readAtOffsets(t) {
		h, err := loadPath(t, path)
		if err != nil {
			t.Fatal(err)
		}
		var sample []ObjectIndex
		for i := 0; i < h.NumObjects(); i += 53 {
			sample = append(sample, ObjectIndex(i))
		}
		labels, err := ReadLabels(h, sample)
		if err != nil {
			t.Fatal(err)
		}
		var steps []StepAt
		var want []StepLabel
		kinds := map[string]bool{}
		for _, u := range sample {
			for _, l := range labels[u] {
				step := StepAt{Offset: RecordOffsets(h, []ObjectIndex{u})[0], From: h.ObjectID(u), To: h.ObjectID(l.To)}
				if slices.Contains(steps, step) {
					continue // a later reference to the same object: the first one names the step
				}
				steps = append(steps, step)
				want = append(want, StepLabel{Label: l.Label, Weak: l.Weak})
				kinds[strings.Map(func(r rune) rune {
					if unicode.IsDigit(r) {
						return -1
					}
					return r
				}, l.Label)] = true
			}
		}
		if len(steps) < 100 || !kinds["[]"] || !kinds["super"] {
			t.Fatalf("%s: %d steps, %d kinds of label: the comparison shows less than it should", path, len(steps), len(kinds))
		}
		// No reference from the first sampled object to itself.
		steps = append(steps, StepAt{Offset: h.recordOffset(sample[1]), From: h.ObjectID(sample[1]), To: h.ObjectID(sample[1])})
		want = append(want, StepLabel{})
		classes := classesOnly(t, h)
		attachDump(t, classes, path)
		got, err := ReadStepLabels(classes, steps)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("%s: step %d (%+v): %+v, want %+v", path, k, steps[k], got[k], want[k])
				}
			}
		}
	}
}

// classesOnly writes h into an index and returns what ReadIndexClasses
// reads back: the heap without its objects.
func classesOnly(t *testing.T, h *Heap) *Heap {
	t.Helper()
	classes, _, err := ReadIndexClasses(indexOf(t, h))
	if err != nil {
		t.Fatal(err)
	}
	if classes.HasObjects || classes.offsets != nil {
		t.Fatal("the heap read for its classes holds objects")
	}
	return classes
}

// readAtOffsets are the dumps whose objects are read at their offsets:
// a plain one and one the JVM wrote with -gz.
func readAtOffsets(t *testing.T) []string {
	plain := filepath.Join(t.TempDir(), "heap.hprof")
	unzip(t, filepath.Join("..", "testdata", "jvm", "jdk17-default.hprof.gz"), plain)
	return []string{plain, filepath.Join("..", "testdata", "jvm", "jdk17-gz.hprof.gz")}
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
