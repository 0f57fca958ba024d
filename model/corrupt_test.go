package model_test

import (
	"bytes"
	"testing"

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
