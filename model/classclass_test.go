package model

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// TestClassObjectsWithoutJavaLangClass loads a dump with two CLASS_DUMPs
// and no java.lang.Class at all, as a dump cut before java.lang.Class was
// dumped is: its class objects must still have a class (sites on such a
// truncated Android dump indexed the classes with NoClass and panicked).
func TestClassObjectsWithoutJavaLangClass(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 4})
	w.BeginHeapDump()
	object := w.Class("java/lang/Object", nil)
	foo := w.Class("com/example/Foo", object, hproftest.Field{Name: "n", Type: hproftest.TypeInt})
	w.Instance(foo, hproftest.Int(7))
	w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: foo.ID})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, objects := range []bool{false, true} {
		f, err := input.NewFile("no-class-class", io.NopCloser(bytes.NewReader(buf.Bytes())), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		h, err := Load(f, LoadOptions{Dump: -1, Objects: objects})
		if err != nil {
			t.Fatal(err)
		}
		cc := h.ClassClass()
		if cc == NoClass {
			t.Fatalf("objects=%v: no java.lang.Class", objects)
		}
		if n := h.Classes[cc].Instances; n != 2 {
			t.Errorf("objects=%v: java.lang.Class has %d instances, want the 2 class objects", objects, n)
		}
		if !objects {
			continue
		}
		for _, c := range []*hproftest.Class{object, foo} {
			i, ok := h.Lookup(uint64(c.ID))
			if !ok {
				t.Fatalf("class object of %s not in the heap", c.Name)
			}
			if got := h.ClassOf(i); got != cc {
				t.Errorf("class object of %s: class %d, want java.lang.Class (%d)", c.Name, got, cc)
			}
		}
	}
}

// TestMissingClassDumpsOneAnomalyPerClass: instances whose class is never
// dumped are one anomaly per class with their count and the first one's
// offset, not one anomaly per instance (a dump cut before its class dumps
// listed thousands).
func TestMissingClassDumpsOneAnomalyPerClass(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 8})
	object := w.DeclareClass(hproftest.ClassSpec{Name: "java/lang/Object"})
	lost := w.DeclareClass(hproftest.ClassSpec{Name: "com/example/Lost", Super: object,
		Fields: []hproftest.Field{{Name: "next", Type: hproftest.TypeObject}}})
	w.BeginHeapDump()
	w.DumpClass(object)
	first := w.Written()
	for range 3 {
		w.Instance(lost, hproftest.Ref(0))
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := input.NewFile("lost", io.NopCloser(&buf), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load(f, LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []Anomaly
	for _, a := range h.Anomalies {
		if a.Kind == "missing-class-dump" {
			got = append(got, a)
		}
	}
	if len(got) != 1 || got[0].Count != 3 || got[0].Offset != first || !strings.Contains(got[0].Detail, "com.example.Lost") {
		t.Errorf("missing-class-dump anomalies %+v, want one for com.example.Lost: 3 instances, the first at offset %d", got, first)
	}
}
