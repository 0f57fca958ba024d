package store

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestMappedArray maps an array section back from the file being
// written: not before it was written out, not as another type, then as
// written, and still so after more sections and Commit, when the
// committed index reads the same array.
func TestMappedArray(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mapped.hprofctl-index")
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	rng := rand.New(rand.NewPCG(1, 2))
	refs := make([]uint32, 300_001)
	for i := range refs {
		refs[i] = rng.Uint32()
	}
	filler := make([]uint64, 100_000)
	if err := WriteArray(w, "head", filler[:1000]); err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(w, "refs", refs); err != nil {
		t.Fatal(err)
	}
	if err := WriteArray(w, "after", filler); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := MappedArray[uint32](w, "refs"); ok || err != nil {
		t.Fatalf("mapped before it was written out: %v, %v", ok, err)
	}
	if err := w.StartWriteback(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := MappedArray[uint64](w, "refs"); ok || err != nil {
		t.Fatalf("mapped as another type: %v, %v", ok, err)
	}
	if _, _, ok, err := MappedArray[uint32](w, "none"); ok || err != nil {
		t.Fatalf("a section never written mapped: %v, %v", ok, err)
	}
	got, unmap, ok, err := MappedArray[uint32](w, "refs")
	if err != nil || !ok {
		t.Fatalf("not mapped once written out: %v, %v", ok, err)
	}
	defer unmap()
	if !slices.Equal(got, refs) {
		t.Fatal("the mapped array differs from the one written")
	}
	if err := WriteArray(w, "tail", filler); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, refs) {
		t.Fatal("the mapped array changed when the index was committed")
	}
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	read, err := Array[uint32](ix, "refs")
	if err != nil || !slices.Equal(read, refs) {
		t.Fatalf("the committed index's array differs (%v)", err)
	}
}
