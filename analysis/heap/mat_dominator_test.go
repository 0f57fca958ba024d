package heap_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// TestMATDominatorTree ports MAT's DominatorTreeTest.testWith
// (plugins/org.eclipse.mat.tests/src/org/eclipse/mat/tests/snapshot/
// DominatorTreeTest.java:40-139) on the two HPROF dumps of
// CreateSampleDump's DominatorTestData: R immediately dominates 8 objects,
// retains 13 and the bytes MAT gives, and every object R retains has the
// immediate dominator and the children the test names (by the last two
// characters of their class names, $A to $L).
func TestMATDominatorTree(t *testing.T) {
	const file = "DominatorTreeTest.java"
	for _, tc := range []struct {
		dump     string
		retained int64
		at       string
	}{
		{"sun_jdk6_32bit.hprof.gz", 224, file + ":42,76"},
		{"sun_jdk5_64bit.hprof.gz", 376, file + ":48,76"},
	} {
		t.Run(tc.dump, func(t *testing.T) {
			h := matDump(t, tc.dump)
			r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rObj := firstInstance(h, "org.eclipse.mat.tests.CreateSampleDump$DominatorTestData$R")
			if rObj == model.NoObject {
				t.Fatal("no instance of DominatorTestData$R")
			}
			name := func(i model.ObjectIndex) string {
				n := h.Classes[h.ClassOf(i)].Name
				return n[len(n)-2:]
			}
			var retained []model.ObjectIndex
			for i := range h.NumObjects() {
				for d := model.ObjectIndex(i); d != graph.VirtualRoot && d != graph.NotReached; d = r.ImmediateDominator(d) {
					if d == rObj {
						retained = append(retained, model.ObjectIndex(i))
						break
					}
				}
			}
			dominated := r.Dominated(retained)
			if n := len(dominated[rObj]); n != 8 {
				t.Errorf("%s:75: R immediately dominates %d objects, MAT 8", file, n)
			}
			if got := r.RetainedBytes(rObj); got != tc.retained {
				t.Errorf("%s: R retains %d bytes, MAT %d", tc.at, got, tc.retained)
			}
			if len(retained) != 13 || r.RetainedObjects(rObj) != 13 {
				t.Errorf("%s:77: R retains %d objects (%d by its count), MAT 13", file, len(retained), r.RetainedObjects(rObj))
			}
			parent := map[string]string{"$A": "$R", "$B": "$R", "$C": "$R", "$D": "$R", "$E": "$R", "$H": "$R", "$I": "$R", "$K": "$R",
				"$F": "$C", "$G": "$C", "$L": "$D", "$J": "$G"}
			children := map[string][]string{"$R": {"$A", "$B", "$C", "$D", "$E", "$H", "$I", "$K"}, "$C": {"$F", "$G"}, "$D": {"$L"}, "$G": {"$J"}}
			for _, i := range retained {
				n := name(i)
				if n != "$R" && parent[n] != name(r.ImmediateDominator(i)) {
					t.Errorf("%s:129: %s is dominated by %s, MAT %s", file, n, name(r.ImmediateDominator(i)), parent[n])
				}
				for _, c := range dominated[i] {
					if !slices.Contains(children[n], name(c)) {
						t.Errorf("%s:136: unknown child of %s: %s", file, n, name(c))
					}
				}
			}
		})
	}
}

// firstInstance is the first object of the class named class, NoObject
// for none.
func firstInstance(h *model.Heap, class string) model.ObjectIndex {
	for i := range h.NumObjects() {
		if c := h.ClassOf(model.ObjectIndex(i)); c != model.NoClass && h.Classes[c].Name == class {
			return model.ObjectIndex(i)
		}
	}
	return model.NoObject
}

// matSkip is the class-name pattern MAT's immediate_dominators query skips
// by default (ImmediateDominatorsQuery: java., javax., com.sun., sun.,
// jdk.).
var matSkip = regexp.MustCompile(`^(java\..*|javax\..*|com\.sun\..*|sun\..*|jdk\..*)$`)

// TestMATImmediateDominators ports DominatorTreeTest.testImmDomQuerySunJdk6_32
// (DominatorTreeTest.java:143-150): on sun_jdk6_32bit the char[]
// objects' nearest dominators outside the JDK's packages fall into 2
// classes (the virtual root counting as one, as MAT's "<ROOT>" row).
func TestMATImmediateDominators(t *testing.T) {
	h := matDump(t, "sun_jdk6_32bit.hprof.gz")
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]bool{}
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if c := h.ClassOf(obj); c == model.NoClass || h.Classes[c].Name != "char[]" || !r.Reachable(obj) {
			continue
		}
		// A class object's class is java.lang.Class, skipped too.
		className := func(i model.ObjectIndex) string { return h.Classes[h.ClassOf(i)].Name }
		d := r.ImmediateDominator(obj)
		for d != graph.VirtualRoot && matSkip.MatchString(className(d)) {
			d = r.ImmediateDominator(d)
		}
		if d == graph.VirtualRoot {
			classes["<ROOT>"] = true
		} else {
			classes[className(d)] = true
		}
	}
	if len(classes) != 2 {
		t.Errorf("DominatorTreeTest.java:149: the char[]s' dominators fall into %d classes %v, MAT 2", len(classes), classes)
	}
}

// TestMATShowDominatorTree ports DominatorTreeTest.testShowDomTreeQuerySunJdk6_32
// (DominatorTreeTest.java:152-159): on sun_jdk6_32bit MAT's dominator
// tree of the char[] objects has 1341 top-level elements, the char[]s no
// other char[] dominates (SnapshotImpl.getTopAncestorsInDominatorTree):
// every char[] MAT keeps, as no char[] references anything. MAT keeps
// what a Reference's referent reaches, hprofctl leaves it out of the
// tree (docs/mat-conventions.md): our tree has the char[]s only a
// referent reaches fewer.
func TestMATShowDominatorTree(t *testing.T) {
	h := matDump(t, "sun_jdk6_32bit.hprof.gz")
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kept := graph.MATKept(h)
	var set []model.ObjectIndex
	ours, mat := 0, 0
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if c := h.ClassOf(obj); c == model.NoClass || h.Classes[c].Name != "char[]" {
			continue
		}
		set = append(set, obj)
		if kept.Has(obj) {
			mat++
		}
	}
	inSet := graph.NewObjectBits(h.NumObjects())
	for _, obj := range set {
		inSet.Add(obj)
	}
	for _, obj := range set {
		if !r.Reachable(obj) {
			continue
		}
		top := true
		for d := r.ImmediateDominator(obj); d != graph.VirtualRoot; d = r.ImmediateDominator(d) {
			if inSet.Has(d) {
				top = false
				break
			}
		}
		if top {
			ours++
		}
	}
	if mat != 1341 {
		t.Errorf("DominatorTreeTest.java:158: %d char[]s kept by MAT's convention, MAT 1341 top-level elements", mat)
	}
	if reached := int(countReachable(r, set)); ours != reached || ours >= mat {
		t.Errorf("our tree: %d top-level char[]s of %d reachable; MAT's convention keeps %d", ours, reached, mat)
	}
}

// countReachable counts the objects of objs the dominator tree r holds.
func countReachable(r *graph.Retention, objs []model.ObjectIndex) int64 {
	var n int64
	for _, obj := range objs {
		if r.Reachable(obj) {
			n++
		}
	}
	return n
}
