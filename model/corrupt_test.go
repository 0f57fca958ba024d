package model_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestNullClassID checks a CLASS_DUMP of class id 0, the null reference
// (FuzzLoad found it): it is skipped and reported, so no object of id 0
// is taken for a class object, and the instance naming class 0 is an
// instance of a class the dump never describes.
func TestNullClassID(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 4})
	w.BeginHeapDump()
	w.ClassDump(hproftest.ClassDump{ID: 0, Fields: []hproftest.FieldEntry{{NameID: w.Name("v"), Type: hproftest.TypeInt}}})
	x := w.Alloc(16)
	w.InstanceDump(hproftest.InstanceDump{ID: x, ClassID: 0, Fields: hproftest.AppendValues(nil, 4, hproftest.Int(5))})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := loadBytes(t, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if a := anomaliesOf(h, "null-class-id"); len(a) != 1 || a[0].Count != 1 {
		t.Errorf("null-class-id anomalies %+v, want one CLASS_DUMP", a)
	}
	xi, ok := h.Lookup(uint64(x))
	if h.NumObjects() != 1 || !ok || h.ShallowBytes(xi, model.SizeFields) != 0 {
		t.Errorf("%d objects, 0x%x found %v: want the instance alone, of no known fields", h.NumObjects(), x, ok)
	}
}

// TestScatteredIDs loads a dump whose 200,000 object ids each lie in a
// 4 GB window of their own (high 32 bits 1, 2, 3, …), each object
// referencing its mirror image (id n+1-k): the id table keeps one run per
// window, and finding an id among the runs once took time in proportion
// to their number, for minutes of work. Every reference must resolve to
// its target, within a deadline far above the second the load takes.
func TestScatteredIDs(t *testing.T) {
	const n = 200000
	id := func(k int) hproftest.ID { return hproftest.ID(uint64(k)<<32 | 8) }
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 8})
	w.BeginHeapDump()
	c := w.Class("X", nil, hproftest.Field{Name: "r", Type: hproftest.TypeObject})
	for k := 1; k <= n; k++ {
		w.InstanceWithID(id(k), c, hproftest.Ref(id(n+1-k)))
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		h   *model.Heap
		err error
	}
	done := make(chan result, 1)
	go func() {
		h, err := loadBytes(t, buf.Bytes())
		done <- result{h, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("no heap within 20 s")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	h := r.h
	bad := 0
	for k := 1; k <= n; k++ {
		i, ok := h.Lookup(uint64(id(k)))
		refs := h.Refs(i)
		if !ok || len(refs) != 1 || h.ObjectID(refs[0]) != uint64(id(n+1-k)) {
			bad++
		}
	}
	if bad > 0 || h.NumObjects() != n+1 {
		t.Errorf("%d objects, %d of the %d references wrong", h.NumObjects(), bad, n)
	}
}

// TestMissingClassDumpsCounted checks that the instances whose class was
// never dumped make one anomaly, however many there are, counting them
// by class.
func TestMissingClassDumpsCounted(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 4})
	w.BeginHeapDump()
	u := w.DeclareClass(hproftest.ClassSpec{Name: "U", Fields: []hproftest.Field{{Name: "r", Type: hproftest.TypeObject}}})
	v := w.DeclareClass(hproftest.ClassSpec{Name: "V", Fields: []hproftest.Field{{Name: "r", Type: hproftest.TypeObject}}})
	for _, c := range []*hproftest.Class{u, u, v, u, v} {
		w.InstanceWithID(w.Alloc(16), c, hproftest.Ref(0))
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := loadBytes(t, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	a := anomaliesOf(h, "missing-class-dump")
	if len(a) != 1 || a[0].Count != 5 || !strings.Contains(a[0].Detail, "3 of U, 2 of V") {
		t.Errorf("missing-class-dump anomalies %+v, want one of 5 instances: 3 of U, 2 of V", a)
	}
}
