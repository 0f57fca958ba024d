package model_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// loadBytes loads an in-memory dump with the per-object tables.
func loadBytes(t testing.TB, data []byte) (*model.Heap, error) {
	t.Helper()
	f, err := input.NewFile("mem", io.NopCloser(bytes.NewReader(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return model.Load(f, model.LoadOptions{Dump: -1, Objects: true})
}

// anomaliesOf returns the details of h's anomalies of the given kind.
func anomaliesOf(h *model.Heap, kind string) []model.Anomaly {
	var out []model.Anomaly
	for _, a := range h.Anomalies {
		if a.Kind == kind {
			out = append(out, a)
		}
	}
	return out
}

// writeInvalidSupers writes a dump in which class Arr names the array
// class Foo[] as its superclass and class Odd names the instance z (of
// class Z, one long field) as its superclass; o is an instance of Odd
// whose one reference field holds z.
func writeInvalidSupers(t testing.TB) (data []byte, z, o hproftest.ID) {
	t.Helper()
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 8})
	w.BeginHeapDump()
	arrays := w.Class("[LFoo;", nil)
	w.DefineClass(hproftest.ClassSpec{Name: "Arr", Super: arrays})
	zc := w.Class("Z", nil, hproftest.Field{Name: "v", Type: hproftest.TypeLong})
	z = w.Instance(zc, hproftest.Long(7))
	odd := w.DeclareClass(hproftest.ClassSpec{Name: "Odd", Fields: []hproftest.Field{{Name: "r", Type: hproftest.TypeObject}}})
	w.ClassDump(hproftest.ClassDump{ID: odd.ID, SuperID: z, InstanceSize: 8,
		Fields: []hproftest.FieldEntry{{NameID: odd.FieldNameIDs[0], Type: hproftest.TypeObject}}})
	o = w.Instance(odd, hproftest.Ref(z))
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), z, o
}

// TestInvalidSuperclasses checks the superclass links that are no loop
// but no Java class could have: both are reported and kept as the dump
// names them, and an instance whose id a class names as its superclass
// stays an instance.
func TestInvalidSuperclasses(t *testing.T) {
	data, z, o := writeInvalidSupers(t)
	h, err := loadBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	invalid := anomaliesOf(h, "superclass-invalid")
	if len(invalid) != 2 || !strings.Contains(invalid[0].Detail, "Arr → Foo[]") ||
		!strings.Contains(invalid[1].Detail, fmt.Sprintf("Odd names 0x%x, an object of class Z", z)) {
		t.Errorf("superclass-invalid anomalies %+v, want Arr → Foo[] and Odd naming the Z 0x%x", invalid, z)
	}
	zi, ok := h.Lookup(uint64(z))
	if !ok {
		t.Fatalf("0x%x not loaded", z)
	}
	if got := h.ShallowBytes(zi, model.SizeFields); h.Classes[h.ClassOf(zi)].Name != "Z" || got != 8 {
		t.Errorf("0x%x: a %s of %d field bytes, want the Z of 8 (its long)", z, h.Classes[h.ClassOf(zi)].Name, got)
	}
	oi, _ := h.Lookup(uint64(o))
	if refs := h.Refs(oi); len(refs) != 0 || len(anomaliesOf(h, "missing-class-dump")) != 1 || !strings.Contains(anomaliesOf(h, "missing-class-dump")[0].Detail, "1 of Odd") {
		t.Errorf("Odd's instance: references %v, anomalies %+v; want its references lost as missing-class-dump says", refs, h.Anomalies)
	}
}

// TestSuperLoopSpelling checks how a loop below a long chain is spelled
// and where it is cut: K0 → K1 → … → K9 → K8, cut at K9 → K8, so that K0
// keeps all ten classes, and a second loop, L → L, counted beside it.
func TestSuperLoopSpelling(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 4})
	w.BeginHeapDump()
	ks := make([]*hproftest.Class, 10)
	for i := range ks {
		ks[i] = w.DeclareClass(hproftest.ClassSpec{Name: fmt.Sprintf("K%d", i), Fields: []hproftest.Field{{Name: "f", Type: hproftest.TypeInt}}})
	}
	l := w.DeclareClass(hproftest.ClassSpec{Name: "L"})
	super := func(i int) hproftest.ID {
		if i == 9 {
			return ks[8].ID
		}
		return ks[i+1].ID
	}
	for i, k := range ks {
		w.ClassDump(hproftest.ClassDump{ID: k.ID, SuperID: super(i), InstanceSize: 4,
			Fields: []hproftest.FieldEntry{{NameID: k.FieldNameIDs[0], Type: hproftest.TypeInt}}})
	}
	w.ClassDump(hproftest.ClassDump{ID: l.ID, SuperID: l.ID})
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := loadBytes(t, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	loops := anomaliesOf(h, "superclass-loop")
	want := "K0 → K1 → K2 → … → K6 → K7 → K8 → K9 → K8 (cut at K9 → K8); L → L (cut at L → L)"
	if len(loops) != 1 || loops[0].Count != 2 || !strings.Contains(loops[0].Detail, want) {
		t.Fatalf("superclass-loop anomalies %+v, want 2 loops spelled %q", loops, want)
	}
	for i := range h.Classes {
		if h.Classes[i].Name == "K0" {
			if got := h.InstanceBytes(model.ClassIndex(i), model.SizeFields); got != 10*4 {
				t.Errorf("K0: %d field bytes, want the int of each of the 10 classes, 40", got)
			}
		}
	}
}

// TestManySuperLoops checks that a superclass-loop anomaly counts every
// loop but spells out only the first five.
func TestManySuperLoops(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 4})
	w.BeginHeapDump()
	for i := range 7 {
		c := w.DeclareClass(hproftest.ClassSpec{Name: fmt.Sprintf("S%d", i)})
		w.ClassDump(hproftest.ClassDump{ID: c.ID, SuperID: c.ID})
	}
	w.EndHeapDump()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := loadBytes(t, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	loops := anomaliesOf(h, "superclass-loop")
	want := "S3 → S3 (cut at S3 → S3); S4 → S4 (cut at S4 → S4); 2 more."
	if len(loops) != 1 || loops[0].Count != 7 || !strings.Contains(loops[0].Detail, want) || strings.Contains(loops[0].Detail, "S5") {
		t.Errorf("superclass-loop anomalies %+v, want 7 loops, S0 to S4 spelled and %q", loops, want)
	}
}
