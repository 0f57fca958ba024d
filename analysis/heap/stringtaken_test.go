package heap

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/parser/input"
)

// TestStringCensusFromTakenValues takes the census of real dumps loaded
// with the Strings' values (model.LoadOptions.StringValues), so that it
// groups them without reading the dump: fixture.Inspect's JDK 17 and 25
// dumps and MAT's JDK 8 dump (char arrays), with no memory budget and
// under a budget of one byte, on several goroutines over tiny chunks.
// It must equal the reference grouping of every String by its value
// array's bytes read one object at a time, and the census from the dump
// once the values are dropped. The Inspect dumps' duplicated Strings
// (testdata/jvm/EXPECTED.md, each copy its own String and array) must be
// there with the counts the program made, the UTF-16 one among them.
func TestStringCensusFromTakenValues(t *testing.T) {
	known := map[string]int64{"duplicate-value-42": 5000, "duplicate-value-7": 300, "duplicate-value-1234": 20, "duplicate-Ω-9": 50}
	paths := []string{
		gunzipTo(t, filepath.Join("..", "..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz")),
		gunzipTo(t, filepath.Join("..", "..", "testdata", "jvm", "jdk25-inspect-before.hprof.gz")),
		gunzipTo(t, testshared.Path(t, "corpus", "eclipse-mat_mat", "oracle_jdk8_05_x64.hprof.gz")),
	}
	for k, path := range paths {
		h := loadWithStringValues(t, path)
		if h.StringValues() == nil {
			t.Fatalf("%s: the load took no String values", path)
		}
		want := referenceCensus(t, h)
		for _, budget := range []int64{0, 1} {
			mapped := bigmem.MappedBytes()
			var got StringCensus
			analysistest.WithParallelism(3, func() {
				defer bigmem.SetBudget(budget, t.TempDir())()
				checkAllTaken(t, h)
				var err error
				if got, err = CountStrings(h, model.HeapSelection{}); err != nil {
					t.Fatal(err)
				}
			})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, budget %d: %d Strings in %d groups, the reference %d in %d", path, budget, got.Strings, len(got.Groups), want.Strings, len(want.Groups))
			}
			if m := bigmem.MappedBytes(); m != mapped {
				t.Errorf("%s, budget %d: %d bytes mapped after the census, %d before", path, budget, m, mapped)
			}
		}
		if k < 2 {
			checkKnownGroups(t, h, want, known)
		}
		h.DropStringValues()
		if h.StringValues() != nil {
			t.Fatal("String values left after DropStringValues")
		}
		read, err := CountStrings(h, model.HeapSelection{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(read, want) {
			t.Errorf("%s: the census read from the dump: %d Strings in %d groups, the reference %d in %d", path, read.Strings, len(read.Groups), want.Strings, len(want.Groups))
		}
	}
}

// checkAllTaken checks that the load of h took the value of every String
// the census reads, so that the census reads none from the dump.
func checkAllTaken(t *testing.T, h *model.Heap) {
	t.Helper()
	var n int64
	strs, valueOf := stringCandidates(h, classByName(h, "java.lang.String"), model.HeapSelection{}, &n)
	defer bigmem.Free(strs)
	defer bigmem.Free(valueOf)
	firsts := firstHolders(h, valueOf)
	defer bigmem.Free(firsts)
	table := groupTakenValues(h, h.StringValues(), strs, valueOf, firsts)
	if table == nil {
		t.Fatal("the load did not take the value of every String the census reads")
	}
	table.free()
}

// loadWithStringValues loads the dump at path with its objects and the
// Strings' values.
func loadWithStringValues(t *testing.T, path string) *model.Heap {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := model.Load(f, model.LoadOptions{Dump: -1, Objects: true, StringValues: true})
	if err != nil {
		t.Fatal(err)
	}
	dumpfile.Attach(h, path)
	return h
}

// checkKnownGroups finds each value of known, by the text of its first
// String, among the groups of c, with as many Strings and as many
// distinct arrays as known says.
func checkKnownGroups(t *testing.T, h *model.Heap, c StringCensus, known map[string]int64) {
	t.Helper()
	firsts := make([]model.ObjectIndex, len(c.Groups))
	for k, g := range c.Groups {
		firsts[k] = g.First
	}
	texts, err := model.ReadStrings(h, firsts)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]StringGroup{}
	for _, g := range c.Groups {
		found[texts[g.First]] = g
	}
	for text, count := range known {
		if g := found[text]; g.Count != count || g.Arrays != count {
			t.Errorf("%q: %d Strings, %d arrays; the program made %d copies, each with its own array", text, g.Count, g.Arrays, count)
		}
	}
}
