package heap_test

import (
	"testing"

	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
)

// matDump loads a dump of Eclipse MAT's test suite from the shared corpus.
func matDump(t *testing.T, name string) *model.Heap {
	t.Helper()
	return testload.Heap(t, testshared.Path(t, "corpus", "eclipse-mat_mat", name))
}

// TestInheritedStaticSerialVersionUID ports MAT's
// OQLTest.testWhereRelationalOperatorsOnStaticAttributes (OQLTest.java:838-839):
// on sun_jdk5_64bit 52 classes have a negative serialVersionUID, read as
// MAT's OQL reads a class's static: its own, else its superclasses'
// (PathExpression walks the superclass chain); fewer declare one.
func TestInheritedStaticSerialVersionUID(t *testing.T) {
	h := matDump(t, "sun_jdk5_64bit.hprof.gz")
	inherited, own := 0, 0
	for c := range h.Classes {
		v, ok := h.InheritedStatic(model.ClassIndex(c), "serialVersionUID")
		if !ok || int64(v.Bits) >= 0 {
			continue
		}
		inherited++
		for _, s := range h.Classes[c].Statics {
			if s.Name == "serialVersionUID" {
				own++
			}
		}
	}
	if inherited != 52 {
		t.Errorf("%d classes with a negative serialVersionUID, theirs or inherited; MAT: 52", inherited)
	}
	if own >= inherited {
		t.Errorf("all %d of them declare it: nothing was inherited", own)
	}
}
