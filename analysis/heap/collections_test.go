package heap

import (
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
)

// staticObject is the object the static field of the class named cls
// holds.
func staticObject(t *testing.T, h *model.Heap, cls, field string) model.ObjectIndex {
	t.Helper()
	c := classByName(h, cls)
	if c == model.NoClass {
		t.Fatalf("no class %s", cls)
	}
	for _, s := range h.Classes[c].Statics {
		if s.Name == field {
			if i, ok := h.Lookup(s.Value); ok {
				return i
			}
		}
	}
	t.Fatalf("%s.%s holds no object", cls, field)
	return model.NoObject
}

// TestCollectionsInspect checks every collection and array of
// fixture.InspectCollections (testdata/jvm/EXPECTED.md, "Collections and
// arrays"): sizes as the program filled them, capacities as the JDK
// sources size the backing arrays, and the empty slots from the keys'
// buckets (Integer i hashes to i: keys 0..n-1 take n buckets of a table
// of at least n), each wasting a 4-byte compressed reference.
func TestCollectionsInspect(t *testing.T) {
	type want struct{ size, capacity, wasted int64 }
	colls := map[string]want{
		"map1024":        {3, 1024, 1021 * 4},
		"mapNeverPut":    {0, 0, 0},
		"mapGrown":       {13, 32, 19 * 4},
		"listEmpty":      {0, 0, 0},
		"listEmptySized": {0, 0, 0},
		"listOversized":  {5, 1000, 995 * 4},
		"listFull":       {10, 10, 0},
		"listGrown":      {11, 15, 4 * 4},
		"deque":          {6, 17, 11 * 4},
		"linkedMap":      {4, 16, 12 * 4},
		"set":            {7, 16, 9 * 4},
		"concurrentMap":  {8, 16, 8 * 4},
		"treeMap":        {9, 9, 0},
		"vector":         {2, 10, 8 * 4},
		"hashtable":      {1, 11, 10 * 4},
		"copyOnWrite":    {14, 14, 0},
		"priorityQueue":  {5, 11, 6 * 4},
		"weakMap":        {2, 16, 14 * 4},
		"identityMap":    {3, 32, (64 - 6) * 4},
		"linkedList":     {4, 4, 0},
	}
	arrays := map[string]ArrayObject{
		"emptyArray": {Length: 0, Kind: ArrayZeroLength, Bytes: 16},
		"nullArray":  {Length: 100, Kind: ArrayAllNull, Bytes: 416},
		"sevens":     {Length: 1000, Kind: ArrayConstant, Bytes: 4016, Value: int32(7)},
	}
	for _, jdk := range []string{"jdk17", "jdk25"} {
		name := jdk + "-inspect-before.hprof.gz"
		gz := filepath.Join("..", "..", "testdata", "jvm", name)
		for _, path := range []string{gz, gunzipTo(t, gz)} {
			t.Run(jdk+"/"+filepath.Ext(path), func(t *testing.T) {
				h := testload.Heap(t, path)
				rep, err := Collections(h, CollectionOptions{Objects: true})
				if err != nil {
					t.Fatal(err)
				}
				byID := map[string]CollectionObject{}
				for _, r := range rep.Objects {
					byID[r.ObjectID] = r
				}
				arrayByID := map[string]ArrayObject{}
				for _, r := range rep.ArrayObjects {
					arrayByID[r.ObjectID] = r
				}
				for field, w := range colls {
					id := ObjectID(h, staticObject(t, h, "fixture.InspectCollections", field))
					r, ok := byID[id]
					if !ok {
						t.Errorf("%s (%s): not listed", field, id)
						continue
					}
					if r.Size != w.size || r.Capacity != w.capacity || r.WastedBytes != w.wasted || r.FillRatio != fillRatio(w.size, w.capacity) {
						t.Errorf("%s: size %d capacity %d wasted %d fill %v, want %d %d %d", field, r.Size, r.Capacity, r.WastedBytes, r.FillRatio, w.size, w.capacity, w.wasted)
					}
				}
				set := staticObject(t, h, "fixture.InspectCollections", "set")
				if _, listed := byID[ObjectID(h, h.Refs(set)[0])]; listed {
					t.Errorf("the set's backing HashMap is listed on its own")
				}
				for field, w := range arrays {
					id := ObjectID(h, staticObject(t, h, "fixture.InspectCollections", field))
					if r := arrayByID[id]; r.Length != w.Length || r.Kind != w.Kind || r.Bytes != w.Bytes || r.Value != w.Value {
						t.Errorf("%s: %+v, want %+v", field, r, w)
					}
				}
				if len(rep.Objects) != int(rep.Collections) {
					t.Errorf("%d rows for %d collections", len(rep.Objects), rep.Collections)
				}

				sums, err := Collections(h, CollectionOptions{})
				if err != nil {
					t.Fatal(err)
				}
				checkCollectionSums(t, rep, sums)
			})
		}
	}
}

// checkCollectionSums checks that the sums per class add up the objects.
func checkCollectionSums(t *testing.T, objs, sums CollectionReport) {
	t.Helper()
	want := map[string]CollectionClass{}
	for _, r := range objs.Objects {
		c := want[r.Class]
		c.Class = r.Class
		c.Instances++
		if r.Size == 0 {
			c.Empty++
		}
		c.Size += r.Size
		c.Capacity += r.Capacity
		c.WastedBytes += r.WastedBytes
		want[r.Class] = c
	}
	if len(sums.Classes) != len(want) || sums.Collections != objs.Collections || sums.WastedBytes != objs.WastedBytes {
		t.Errorf("%d classes, %d collections wasting %d; the objects make %d, %d, %d", len(sums.Classes), sums.Collections, sums.WastedBytes, len(want), objs.Collections, objs.WastedBytes)
	}
	for _, c := range sums.Classes {
		w := want[c.Class]
		w.FillRatio = fillRatio(w.Size, w.Capacity)
		if c != w {
			t.Errorf("%s: %+v, the objects sum to %+v", c.Class, c, w)
		}
	}
}
