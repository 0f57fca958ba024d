package heap

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
)

func TestPackageOf(t *testing.T) {
	for name, want := range map[string]string{
		"java.lang.String":               "java.lang",
		"java.util.HashMap$Node":         "java.util",
		"java.util.HashMap$Node[]":       "java.util",
		"fixture.InspectGrowth[][]":      "fixture",
		"long[]":                         PrimitiveArrays,
		"int[][]":                        PrimitiveArrays,
		"Main":                           DefaultPackage,
		"Main[]":                         DefaultPackage,
		"int":                            DefaultPackage,
		"com.example.deep.pkg.Outer$In1": "com.example.deep.pkg",
	} {
		if got := PackageOf(name); got != want {
			t.Errorf("PackageOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTopConsumersInspect groups the top of the dominator tree of the
// fixture.Inspect dump three ways. Each grouping covers the reachable
// heap once; the stack-held long[1 << 20] (EXPECTED.md: 8,388,624 bytes,
// nothing else retained) is a top-level object of its own; the fixture
// package, the bootstrap loader and the classes are checked against sums
// taken here over the top-level objects.
func TestTopConsumersInspect(t *testing.T) {
	h, r := testload.Fixture(t, "jdk17-inspect-after.hprof.gz")
	tops := r.TopLevel()
	var big model.ObjectIndex = model.NoObject
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if c := h.ClassOf(obj); c != model.NoClass && h.Classes[c].Name == "long[]" && h.ArrayLength(obj) == 1<<20 {
			big = obj
		}
	}
	if big == model.NoObject || r.ImmediateDominator(big) != model.NoObject || r.RetainedBytes(big) != 8_388_624 {
		t.Fatalf("the long[1 << 20] is not a top-level object retaining 8,388,624 bytes")
	}
	// ownName is the class an object stands for: its class, or the class
	// a class object is the object of.
	ownName := func(obj model.ObjectIndex) string {
		if c, ok := h.ClassObjectOf(obj); ok && h.Classes[c].Object == obj {
			return h.Classes[c].Name
		}
		return h.Classes[h.ClassOf(obj)].Name
	}
	want := map[string]map[string]TopConsumerRow{ByClass: {}, ByPackage: {}, ByClassLoader: {}}
	addTo := func(by, name string, obj model.ObjectIndex) {
		row := want[by][name]
		row.Objects++
		row.RetainedBytes += r.RetainedBytes(obj)
		want[by][name] = row
	}
	for _, obj := range tops {
		own := ownName(obj)
		if strings.HasPrefix(own, "fixture.") {
			addTo(ByPackage, "fixture", obj)
		}
		switch {
		case graph.IsClassObject(h, obj) || h.Classes[h.ClassOf(obj)].Name == "java.lang.Class":
			// Class objects, and the primitive types' mirrors (instances
			// of java.lang.Class the dump has no class for).
			addTo(ByClass, "java.lang.Class", obj)
		case own == "long[]":
			addTo(ByClass, "long[]", obj)
		}
		c := h.ClassOf(obj)
		if oc, ok := h.ClassObjectOf(obj); ok && h.Classes[oc].Object == obj {
			c = oc
		}
		if h.Classes[c].Loader == 0 {
			addTo(ByClassLoader, BootstrapLoader, obj)
		}
	}
	if len(want[ByPackage]) == 0 {
		t.Fatal("no top-level object of the fixture package")
	}
	for by, rows := range want {
		rep, err := TopConsumers(h, r, TopOptions{By: by})
		if err != nil {
			t.Fatal(err)
		}
		var objects, bytes int64
		got := map[string]TopConsumerRow{}
		for k, row := range rep.Rows {
			objects += row.Objects
			bytes += row.RetainedBytes
			got[row.Name] = row
			if k > 0 && rep.Rows[k-1].RetainedBytes < row.RetainedBytes {
				t.Errorf("by %s: row %d retains more than row %d", by, k, k-1)
			}
		}
		if objects != int64(len(tops)) || bytes != r.ReachableBytes() || rep.TopLevelObjects != int64(len(tops)) || rep.TotalBytes != r.ReachableBytes() {
			t.Errorf("by %s: rows add up to %d objects, %d bytes; want %d top-level objects, %d reachable bytes", by, objects, bytes, len(tops), r.ReachableBytes())
		}
		for name, w := range rows {
			g := got[name]
			if g.Objects != w.Objects || g.RetainedBytes != w.RetainedBytes {
				t.Errorf("by %s: %q has %d objects, %d bytes; want %d, %d", by, name, g.Objects, g.RetainedBytes, w.Objects, w.RetainedBytes)
			}
			if wp := 100 * float64(w.RetainedBytes) / float64(r.ReachableBytes()); g.Percent != wp {
				t.Errorf("by %s: %q is %v%%, want %v%%", by, name, g.Percent, wp)
			}
		}
		if by == ByClass && got["long[]"].RetainedBytes < 8_388_624 {
			t.Errorf("by class: long[] retains %d bytes, want at least the stack-held array's 8,388,624", got["long[]"].RetainedBytes)
		}
		if by == ByPackage && got[PrimitiveArrays].RetainedBytes < 8_388_624 {
			t.Errorf("by package: %s retain %d bytes, want at least 8,388,624", PrimitiveArrays, got[PrimitiveArrays].RetainedBytes)
		}
		top2, _ := TopConsumers(h, r, TopOptions{By: by, Top: 2})
		if len(top2.Rows) != 2 || top2.Groups != len(rep.Rows) || top2.Rows[0] != rep.Rows[0] {
			t.Errorf("by %s --top 2: %d rows of %d groups, want the first 2 of %d", by, len(top2.Rows), top2.Groups, len(rep.Rows))
		}
	}
	if _, err := TopConsumers(h, r, TopOptions{By: "module"}); err == nil {
		t.Error("grouping by module: no error")
	}
}
