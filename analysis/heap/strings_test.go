package heap

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
)

// TestDuplicateStringsInspect checks the duplicated Strings fixture.Inspect
// made (testdata/jvm/EXPECTED.md, "Duplicated strings"): each copy is its
// own String (24 bytes, the histogram's) and its own value array, so a
// value of c copies wastes c-1 times both. Every other group must agree
// with a reference grouping of every String's decoded text.
func TestDuplicateStringsInspect(t *testing.T) {
	want := map[string]DuplicateString{
		"duplicate-value-42":   {Count: 5000, WastedBytes: 4999 * (24 + 40)},
		"duplicate-value-7":    {Count: 300, WastedBytes: 299 * (24 + 40)},
		"duplicate-value-1234": {Count: 20, WastedBytes: 19 * (24 + 40)},
		"duplicate-Ω-9":        {Count: 50, WastedBytes: 49 * (24 + 48)},
	}
	for _, jdk := range []string{"jdk17", "jdk25"} {
		name := jdk + "-inspect-before.hprof.gz"
		gz := filepath.Join("..", "..", "testdata", "jvm", name)
		for _, path := range []string{gz, gunzipTo(t, gz)} {
			t.Run(jdk+"/"+filepath.Ext(path), func(t *testing.T) {
				h := testload.Heap(t, path)
				rep, err := DuplicateStrings(h, StringOptions{MinCount: 2})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]DuplicateString{}
				for _, r := range rep.Rows {
					if _, dup := got[r.Value]; dup {
						t.Errorf("value %q in two rows", r.Value)
					}
					got[r.Value] = r
				}
				for v, w := range want {
					if g := got[v]; g.Count != w.Count || g.WastedBytes != w.WastedBytes {
						t.Errorf("%q: %d copies wasting %d bytes, want %d wasting %d", v, g.Count, g.WastedBytes, w.Count, w.WastedBytes)
					}
				}
				if rep.Rows[0].Value != "duplicate-value-42" {
					t.Errorf("first row %q, want the value of 5000 copies", rep.Rows[0].Value)
				}
				for k := 1; k < len(rep.Rows); k++ {
					if rep.Rows[k].WastedBytes > rep.Rows[k-1].WastedBytes {
						t.Errorf("row %d wastes more than row %d", k, k-1)
					}
				}
				checkStringsReference(t, h, rep)

				top, err := DuplicateStrings(h, StringOptions{MinCount: 300, Top: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(top.Rows) != 1 || top.Rows[0].Value != "duplicate-value-42" || top.Groups < 2 {
					t.Errorf("--min-count 300 --top 1: %+v", top)
				}
			})
		}
	}
}

// checkStringsReference groups every String of h by its text as
// model.ReadStrings decodes it, one object at a time, and compares the
// counts with rep.
func checkStringsReference(t *testing.T, h *model.Heap, rep DuplicateStringReport) {
	t.Helper()
	strs := instancesNamed(h, "java.lang.String")
	if int64(len(strs)) != rep.Strings {
		t.Errorf("%d Strings counted, the heap has %d", rep.Strings, len(strs))
	}
	texts, err := model.ReadStrings(h, strs)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, s := range strs {
		if text, ok := texts[s]; ok {
			counts[text]++
		}
	}
	groups := 0
	for _, c := range counts {
		if c >= 2 {
			groups++
		}
	}
	if groups != rep.Groups || groups != len(rep.Rows) {
		t.Errorf("%d groups (%d rows), the reference finds %d", rep.Groups, len(rep.Rows), groups)
	}
	for _, r := range rep.Rows {
		if counts[r.Value] != r.Count {
			t.Errorf("%q: %d copies, the reference counts %d", r.Value, r.Count, counts[r.Value])
		}
	}
}

// TestStringCensusInParallel: the census taken on several goroutines over
// chunks of a few objects (so that the Strings are found, their keys
// spread and their groups made by many chunks and buckets) is the census
// taken on one, and the groups agree with the reference grouping of every
// String's decoded text.
func TestStringCensusInParallel(t *testing.T) {
	gz := filepath.Join("..", "..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz")
	h := testload.Heap(t, gunzipTo(t, gz))
	var want StringCensus
	analysistest.WithParallelism(1, func() {
		var err error
		if want, err = CountStrings(h, model.HeapSelection{}); err != nil {
			t.Fatal(err)
		}
	})
	if len(want.Groups) < 4 {
		t.Fatalf("%d groups: the fixture has at least 4 duplicated values", len(want.Groups))
	}
	for _, procs := range []int{2, 3} {
		analysistest.WithParallelism(procs, func() {
			got, err := CountStrings(h, model.HeapSelection{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d goroutines: %d Strings in %d groups, one goroutine: %d in %d", procs, got.Strings, len(got.Groups), want.Strings, len(want.Groups))
			}
			rep, err := DuplicateStrings(h, StringOptions{MinCount: 2})
			if err != nil {
				t.Fatal(err)
			}
			checkStringsReference(t, h, rep)
		})
	}
}
