package heap

import (
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestElidedStepClasses counts the objects a path leaves out by class,
// a class object by its own name ("class A"), most first, the first met
// first among equals.
func TestElidedStepClasses(t *testing.T) {
	var a1, a2, a3, b1 hproftest.ID
	h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
		a := w.Class("A", nil)
		b := w.Class("B", nil)
		a1, a2, a3 = w.Instance(a), w.Instance(a), w.Instance(a)
		b1 = w.Instance(b)
	})
	classObject := func(name string) model.ObjectIndex {
		for _, c := range h.Classes {
			if c.Name == name {
				return c.Object
			}
		}
		t.Fatalf("no class %s", name)
		return model.NoObject
	}
	obj := func(id hproftest.ID) model.ObjectIndex { return analysistest.Lookup(t, h, id) }
	left := []model.ObjectIndex{obj(b1), obj(a1), classObject("A"), obj(a2), classObject("B"), obj(a3), classObject("A")}
	got := elidedStep(h, left)
	want := []ElidedClass{{"A", 3}, {"class A", 2}, {"B", 1}, {"class B", 1}}
	if !reflect.DeepEqual(got.ElidedClasses, want) || got.Elided != 7 || got.ObjectID != "" {
		t.Errorf("elided step %+v; want 7 objects counted as %v", got, want)
	}
	if wantName := "A ×3, class A ×2, B ×1, 1 more class"; got.Class != wantName {
		t.Errorf("elided step's class %q, want %q", got.Class, wantName)
	}
}
