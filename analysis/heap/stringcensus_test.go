package heap

import (
	"cmp"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestStringCensusWithinBudget takes the census of real dumps (JDK 17's
// fixture.Inspect; MAT's JDK 8 and JDK 6 dumps, whose Strings hold char
// arrays, some of them shared) with no memory budget and under a budget
// of one byte, which puts every work table in a mapped scratch file,
// on several goroutines over tiny chunks: both must equal a reference
// grouping of every String by its value array's bytes read one object at
// a time with ReadValues (count, distinct arrays, first String and its
// array), and the census must leave no table mapped.
func TestStringCensusWithinBudget(t *testing.T) {
	paths := []string{gunzipTo(t, filepath.Join("..", "..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz"))}
	for _, name := range []string{"oracle_jdk8_05_x64.hprof.gz", "sun_jdk6_18_x64.hprof.gz"} {
		paths = append(paths, gunzipTo(t, testshared.Path(t, "corpus", "eclipse-mat_mat", name)))
	}
	for _, path := range paths {
		h := testload.Heap(t, path)
		want := referenceCensus(t, h)
		if len(want.Groups) < 4 {
			t.Fatalf("%s: %d groups: every one of these dumps has duplicated Strings", path, len(want.Groups))
		}
		for _, budget := range []int64{0, 1} {
			mapped := bigmem.MappedBytes()
			var got StringCensus
			analysistest.WithParallelism(3, func() {
				defer bigmem.SetBudget(budget, t.TempDir())()
				var err error
				if got, err = CountStrings(h, model.HeapSelection{}); err != nil {
					t.Fatal(err)
				}
			})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, budget %d: %d Strings in %d groups, the reference %d in %d", path, budget, got.Strings, len(got.Groups), want.Strings, len(want.Groups))
				for k := range min(len(got.Groups), len(want.Groups)) {
					if got.Groups[k] != want.Groups[k] {
						t.Errorf("group %d: %+v, the reference %+v", k, got.Groups[k], want.Groups[k])
						break
					}
				}
			}
			if m := bigmem.MappedBytes(); m != mapped {
				t.Errorf("%s, budget %d: %d bytes mapped after the census, %d before", path, budget, m, mapped)
			}
		}
	}
}

// referenceCensus groups every String of h whose one reference is a
// primitive array by that array's element type and bytes and the
// String's coder, all read with ReadValues.
func referenceCensus(t *testing.T, h *model.Heap) StringCensus {
	t.Helper()
	strs := instancesNamed(h, "java.lang.String")
	objs := slices.Clone(strs)
	for _, s := range strs {
		objs = append(objs, h.Refs(s)...)
	}
	vals, err := model.ReadValues(h, objs, model.ValueOptions{Elements: -1})
	if err != nil {
		t.Fatal(err)
	}
	type value struct {
		elem  model.Type
		coder int
		bytes string
	}
	groups := map[value]*StringGroup{}
	arrays := map[value]map[model.ObjectIndex]bool{}
	for _, s := range strs {
		refs := h.Refs(s)
		if len(refs) != 1 || vals[refs[0]].Length < 0 || vals[refs[0]].Elem == model.TypeObject {
			continue
		}
		a := vals[refs[0]]
		var b []byte
		for _, e := range a.Elements {
			b = append(b, byte(e.Bits>>8), byte(e.Bits))
		}
		v := value{elem: a.Elem, coder: model.StringCoder(vals[s]), bytes: string(b)}
		if groups[v] == nil {
			groups[v], arrays[v] = &StringGroup{First: s, Array: refs[0]}, map[model.ObjectIndex]bool{}
		}
		groups[v].Count++
		arrays[v][refs[0]] = true
	}
	c := StringCensus{Strings: int64(len(strs))}
	for v, g := range groups {
		if g.Count >= 2 {
			g.Arrays = int64(len(arrays[v]))
			c.Groups = append(c.Groups, *g)
		}
	}
	slices.SortFunc(c.Groups, func(x, y StringGroup) int { return cmp.Compare(x.First, y.First) })
	return c
}
