package graph

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// TestMATKept checks MAT's reachability rule on a small dump of the
// bootstrap loader's classes: a class with a reachable instance is kept,
// and so is what a Reference's referent reaches; a class nothing
// references is kept only when the dump marks no sticky class and it is
// no array class. The retention graph keeps every bootstrap class.
func TestMATKept(t *testing.T) {
	for _, tc := range []struct {
		sticky      bool
		unusedClass bool // MAT keeps the class nothing references
	}{{true, false}, {false, true}} {
		var object, used, unused, unusedArray, usedObj, weakObj, referent hproftest.ID
		h := analysistest.LoadSynthetic(t, func(w *hproftest.Writer) {
			obj := w.Class("java/lang/Object", nil)
			ref := w.Class("java/lang/ref/Reference", obj, hproftest.Field{Name: "referent", Type: hproftest.TypeObject})
			u := w.Class("Used", obj)
			n := w.Class("Unused", obj)
			a := w.Class("[LUnused;", obj)
			object, used, unused, unusedArray = obj.ID, u.ID, n.ID, a.ID
			usedObj = w.Instance(u)
			referent = w.Instance(u)
			weakObj = w.Instance(ref, hproftest.Ref(referent))
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: usedObj, JNIRef: 1})
			w.Root(hproftest.Root{Kind: hproftest.RootJNIGlobal, ID: weakObj, JNIRef: 2})
			if tc.sticky {
				w.Root(hproftest.Root{Kind: hproftest.RootStickyClass, ID: object})
			}
		})
		kept := MATKept(h)
		r, err := ComputeRetention(h, RetentionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			what           string
			id             hproftest.ID
			mat, retention bool
		}{
			{"java.lang.Object", object, true, true},
			{"the class of a rooted instance", used, true, true},
			{"the rooted instance", usedObj, true, true},
			{"the Reference", weakObj, true, true},
			{"its referent", referent, true, false},
			{"a class nothing references", unused, tc.unusedClass, true},
			{"an array class nothing references", unusedArray, false, true},
		} {
			obj := analysistest.Lookup(t, h, c.id)
			if kept.Has(obj) != c.mat || r.Reachable(obj) != c.retention {
				t.Errorf("sticky classes %v: %s: MAT keeps it %v, the retention reaches it %v; want %v and %v",
					tc.sticky, c.what, kept.Has(obj), r.Reachable(obj), c.mat, c.retention)
			}
		}
	}
}
