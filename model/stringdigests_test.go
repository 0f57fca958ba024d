package model

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/input"
)

// TestStringValuesMatchReadValues loads real dumps with StringValues,
// in pieces of one sub-record each and of 64 KiB on four workers:
// fixture.Inspect's JDK 17 and 25 dumps (byte arrays, LATIN1 and UTF-16
// Strings: its "duplicate-Ω-9" copies have coder 1) and MAT's JDK 8 dump
// (char arrays, no coder field). Every byte and char array must have a
// digest and no other object one, two arrays must have the same digest
// exactly when ReadValues gives them the same element bytes, and every
// String's coder must be the one StringCoder reads from its record. A
// load without StringValues, and one of the compressed dump (read in
// pieces from its stream, its census left to the question), take none.
func TestStringValuesMatchReadValues(t *testing.T) {
	defer func(saved int64) { splitBatchBytes = saved }(splitBatchBytes)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir := t.TempDir()
	var paths []string
	for _, jdk := range []string{"jdk17", "jdk25"} {
		paths = append(paths, gunzipTo(t, filepath.Join("..", "testdata", "jvm", jdk+"-inspect-before.hprof.gz"), dir))
	}
	paths = append(paths, gunzipTo(t, testshared.Path(t, "corpus", "eclipse-mat_mat", "oracle_jdk8_05_x64.hprof.gz"), dir))
	for _, batch := range []int64{1, 64 << 10} {
		splitBatchBytes = batch
		for _, path := range paths {
			t.Run(fmt.Sprintf("%s/batch=%d", filepath.Base(path), batch), func(t *testing.T) {
				h := loadStringValues(t, path, true)
				if h.StringValues() == nil {
					t.Fatal("no String values taken from a plain HotSpot dump read in pieces")
				}
				checkStringValues(t, h)
				if loadStringValues(t, path, false).StringValues() != nil {
					t.Error("String values taken without LoadOptions.StringValues")
				}
			})
		}
	}
	gz := loadStringValues(t, filepath.Join("..", "testdata", "jvm", "jdk17-inspect-before.hprof.gz"), true)
	if gz.StringValues() != nil {
		t.Error("String values taken from a compressed dump")
	}
}

// loadStringValues loads the dump at path with its objects, taking the
// Strings' values when values is set.
func loadStringValues(t *testing.T, path string, values bool) *Heap {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Load(f, LoadOptions{Dump: -1, Objects: true, StringValues: values})
	if err != nil {
		t.Fatal(err)
	}
	attachDump(t, h, path)
	return h
}

// checkStringValues compares the String values h took with what
// ReadValues reads of every object.
func checkStringValues(t *testing.T, h *Heap) {
	t.Helper()
	v := h.StringValues()
	objs := make([]ObjectIndex, h.NumObjects())
	for i := range objs {
		objs[i] = ObjectIndex(i)
	}
	vals, err := ReadValues(h, objs, ValueOptions{Elements: -1})
	if err != nil {
		t.Fatal(err)
	}
	if name := h.Classes[v.Class()].Name; name != "java.lang.String" {
		t.Fatalf("values taken for class %q", name)
	}
	byDigest, byBytes := map[uint64]string{}, map[string]uint64{}
	arrays, strs, coders := 0, 0, map[int]int{}
	for _, o := range objs {
		val := vals[o]
		digest, taken := v.Digest(o)
		if valued := val.Length >= 0 && (val.Elem == TypeByte || val.Elem == TypeChar); taken != valued {
			t.Fatalf("object %d (%s): digest taken %v", o, h.Classes[h.ClassOf(o)].Name, taken)
		}
		if taken {
			arrays++
			key := string(elementBytes(val))
			if b, ok := byDigest[digest]; ok && b != key {
				t.Fatalf("array %d: digest %x of two different element lists", o, digest)
			}
			if d, ok := byBytes[key]; ok && d != digest {
				t.Fatalf("array %d: equal elements with digests %x and %x", o, d, digest)
			}
			byDigest[digest], byBytes[key] = key, digest
		}
		if h.ClassOf(o) == v.Class() {
			strs++
			coder, known := v.Coder(o)
			if want := StringCoder(val); !known || coder != want {
				t.Fatalf("String %d: coder %d (known %v), its record says %d", o, coder, known, want)
			}
			coders[coder]++
		}
	}
	if arrays < 1000 || strs < 1000 || len(byBytes) == arrays {
		t.Errorf("%d arrays with %d distinct values, %d Strings: the dumps hold thousands, some equal", arrays, len(byBytes), strs)
	}
	t.Logf("%d byte or char arrays, %d distinct; %d Strings by coder %v", arrays, len(byBytes), strs, coders)
}
