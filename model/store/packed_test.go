package store

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// packedValues are sequences a Packed array must keep exactly: ascending
// ids with a jump past 32 bits, values in any order, the whole uint64
// range, constant blocks and a last block cut short.
func packedValues() map[string][]uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	sorted := make([]uint64, 1000)
	v := uint64(0x7_FFFF_F000)
	for i := range sorted {
		v += 16 + 8*uint64(r.IntN(8))
		if i == 500 {
			v += 1 << 40
		}
		sorted[i] = v
	}
	mixed := make([]uint64, 333)
	for i := range mixed {
		mixed[i] = r.Uint64() >> uint(r.IntN(64))
	}
	return map[string][]uint64{
		"sorted":   sorted,
		"mixed":    mixed,
		"extremes": {0, math.MaxUint64, 1, math.MaxUint64 - 1, 0},
		"constant": make([]uint64, 200),
		"one":      {42},
		"none":     {},
	}
}

// writeIndex writes the sections fn writes into a new index and opens it.
func writeIndex(t *testing.T, fn func(w *Writer) error) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "heap.hprof"+Suffix)
	w, err := Create(path, testID, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := fn(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func TestPackedRoundTrip(t *testing.T) {
	values := packedValues()
	ix := writeIndex(t, func(w *Writer) error {
		for name, vals := range values {
			if err := WritePacked(w, name, len(vals), FillFrom(vals)); err != nil {
				return err
			}
		}
		return nil
	})
	for name, vals := range values {
		var p Packed
		var err error
		LoadPacked(ix, name, len(vals), &p, &err)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Len() != len(vals) {
			t.Errorf("%s: Len() = %d, want %d", name, p.Len(), len(vals))
		}
		for i, v := range vals {
			if got := p.At(i); got != v {
				t.Fatalf("%s: At(%d) = %d, want %d", name, i, got, v)
			}
			if i+1 < len(vals) {
				if a, b := p.Pair(i); a != v || b != vals[i+1] {
					t.Fatalf("%s: Pair(%d) = %d, %d, want %d, %d", name, i, a, b, v, vals[i+1])
				}
			}
		}
		n := len(vals)
		for _, r := range [][2]int{{0, n}, {1, 63}, {63, 2}, {5, 200}, {n - 3, 3}, {n, 0}} {
			if r[0] < 0 || r[0]+r[1] > n {
				continue
			}
			got := make([]uint64, r[1])
			p.Values(r[0], got)
			if !slices.Equal(got, vals[r[0]:r[0]+r[1]]) {
				t.Fatalf("%s: Values(%d, %d values) differ from At", name, r[0], r[1])
			}
		}
		k := 0
		if err := p.EachBlock(func(lo int, got []uint64) error {
			for j, v := range got {
				if lo+j != k || v != vals[k] {
					t.Fatalf("%s: EachBlock gave (%d, %d), want (%d, %d)", name, lo+j, v, k, vals[k])
				}
				k++
			}
			return nil
		}); err != nil || k != len(vals) {
			t.Errorf("%s: EachBlock visited %d of %d: %v", name, k, len(vals), err)
		}
	}
	// Sorted ids close together take about 1.5 bytes each, not 8.
	info, _ := ix.Section("sorted" + packedBits)
	if info.Bytes > 2*uint64(len(values["sorted"])) {
		t.Errorf("1000 close sorted values take %d bytes of bits", info.Bytes)
	}
}

// TestPackedCrafted writes block starts that do not fit the words: each
// is refused at loading, so that At cannot read outside the words.
func TestPackedCrafted(t *testing.T) {
	cases := map[string]struct {
		base, start, bits []uint64
		n                 int
	}{
		"wide-block":     {base: []uint64{0}, start: []uint64{0, 65}, bits: make([]uint64, 65), n: 64},
		"backwards":      {base: []uint64{0, 0}, start: []uint64{0, 3, 2}, bits: make([]uint64, 2), n: 128},
		"past-words":     {base: []uint64{0}, start: []uint64{0, 4}, bits: make([]uint64, 3), n: 10},
		"short-of-words": {base: []uint64{0}, start: []uint64{0, 2}, bits: make([]uint64, 3), n: 10},
		"few-blocks":     {base: []uint64{0}, start: []uint64{0, 0}, n: 65},
		"start-not-0":    {base: []uint64{0}, start: []uint64{1, 1}, bits: make([]uint64, 1), n: 1},
		"starts-short":   {base: []uint64{0}, start: []uint64{0}, n: 1},
	}
	ix := writeIndex(t, func(w *Writer) error {
		for name, c := range cases {
			if err := joinFirst(WriteArray(w, name+packedBase, c.base), WriteArray(w, name+packedStart, c.start),
				WriteArray(w, name+packedBits, c.bits)); err != nil {
				return err
			}
		}
		return nil
	})
	for name, c := range cases {
		var p Packed
		var err error
		LoadPacked(ix, name, c.n, &p, &err)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want %v", name, err, ErrCorrupt)
		}
	}
}

func TestNarrowRoundTrip(t *testing.T) {
	vals := []uint64{0, 1, 254, 255, 256, 1 << 40, 7, math.MaxUint64, 255, 3}
	for i := range 200 {
		vals = append(vals, uint64(i*i%300))
	}
	ix := writeIndex(t, func(w *Writer) error {
		return joinFirst(WriteNarrow[uint8](w, "n8", len(vals), FillFrom(vals)),
			WriteNarrow[uint16](w, "n16", len(vals), FillFrom(vals)))
	})
	var (
		a8  Narrow[uint8]
		a16 Narrow[uint16]
		err error
	)
	LoadNarrow(ix, "n8", len(vals), &a8, &err)
	LoadNarrow(ix, "n16", len(vals), &a16, &err)
	if err != nil {
		t.Fatal(err)
	}
	big := 0
	for i, v := range vals {
		if a8.At(i) != v || a16.At(i) != v {
			t.Errorf("value %d: %d and %d, want %d", i, a8.At(i), a16.At(i), v)
		}
		if v >= 255 {
			big++
		}
	}
	if info, _ := ix.Section("n8" + narrowValue); info.Count != uint64(big) {
		t.Errorf("%d values of 8 bits in the side table, want %d (255 and up)", info.Count, big)
	}
	if err := func() (err error) { LoadNarrow(ix, "n8", len(vals)+1, &a8, &err); return }(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("loading %d values of %d: %v, want %v", len(vals)+1, len(vals), err, ErrCorrupt)
	}
}

// TestNarrowCrafted gives a Narrow array counts of marks that decrease,
// exceed the side table or miss a block: loading refuses them. Counts
// that send a mark past the side table read as the mark, never outside
// it.
func TestNarrowCrafted(t *testing.T) {
	marks := []uint8{255, 255}
	ix := writeIndex(t, func(w *Writer) error {
		return joinFirst(
			WriteArray(w, "order", make([]uint8, 128)), WriteArray(w, "order"+narrowBefore, []uint32{1, 0}),
			WriteArray(w, "order"+narrowValue, []uint64{300}),
			WriteArray(w, "range", marks), WriteArray(w, "range"+narrowBefore, []uint32{2}),
			WriteArray(w, "range"+narrowValue, []uint64{300}),
			WriteArray(w, "blocks", marks), WriteArray(w, "blocks"+narrowBefore, []uint32{0, 0}),
			WriteArray(w, "blocks"+narrowValue, []uint64{300, 400}),
			WriteArray(w, "lone", marks), WriteArray(w, "lone"+narrowBefore, []uint32{0}),
			WriteArray(w, "lone"+narrowValue, []uint64{300}))
	})
	for name, n := range map[string]int{"order": 128, "range": 2, "blocks": 2} {
		var a Narrow[uint8]
		var err error
		LoadNarrow(ix, name, n, &a, &err)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want %v", name, err, ErrCorrupt)
		}
	}
	var a Narrow[uint8]
	var err error
	if LoadNarrow(ix, "lone", 2, &a, &err); err != nil || a.At(0) != 300 || a.At(1) != 255 {
		t.Errorf("a mark without a value: %v, %d %d", err, a.At(0), a.At(1))
	}
}

// TestMarksIn counts marks 8 bytes at a time as one by one does, in
// slices of every length and offset.
func TestMarksIn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b8, b16 := make([]uint8, 200), make([]uint16, 200)
	for i := range b8 {
		if r.IntN(3) == 0 {
			b8[i], b16[i] = 0xFF, 0xFFFF
		} else {
			b8[i], b16[i] = uint8(r.IntN(255)), uint16(r.IntN(0xFFFF))
		}
	}
	b8[7], b16[7] = 0xFE, 0xFFFE // one bit short of a mark
	naive := func(n int, mark func(int) bool) int {
		k := 0
		for i := range n {
			if mark(i) {
				k++
			}
		}
		return k
	}
	for lo := range 70 {
		for hi := lo; hi <= lo+70; hi++ {
			s8, s16 := b8[lo:hi], b16[lo:hi]
			if got, want := marksIn(s8), naive(len(s8), func(i int) bool { return s8[i] == 0xFF }); got != want {
				t.Fatalf("uint8 [%d:%d]: %d marks, want %d", lo, hi, got, want)
			}
			if got, want := marksIn(s16), naive(len(s16), func(i int) bool { return s16[i] == 0xFFFF }); got != want {
				t.Fatalf("uint16 [%d:%d]: %d marks, want %d", lo, hi, got, want)
			}
		}
	}
}

// TestNarrowSteps writes a Narrow array of several steps, whose values
// are worked out while the step before is written: fill is asked for
// each step once, in order, and every value, the large ones of each step
// included, reads back.
func TestNarrowSteps(t *testing.T) {
	n := 3*narrowStep + 100
	value := func(i int) uint64 {
		if i%1000 == 7 {
			return uint64(1<<20 + i)
		}
		return uint64(i % 60000)
	}
	var asked []int
	ix := writeIndex(t, func(w *Writer) error {
		return WriteNarrow[uint16](w, "n16", n, func(lo int, vals []uint64) {
			asked = append(asked, lo)
			for k := range vals {
				vals[k] = value(lo + k)
			}
		})
	})
	if want := []int{0, narrowStep, 2 * narrowStep, 3 * narrowStep}; !slices.Equal(asked, want) {
		t.Errorf("fill asked for the steps from %v, want %v", asked, want)
	}
	var (
		a   Narrow[uint16]
		err error
	)
	LoadNarrow(ix, "n16", n, &a, &err)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if a.At(i) != value(i) {
			t.Fatalf("value %d: %d, want %d", i, a.At(i), value(i))
		}
	}
}

// TestNarrowWriteFails: a Narrow array whose file cannot be written to
// the end is an error, returned once the values worked out meanwhile
// are done with.
func TestNarrowWriteFails(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "heap.hprof"+Suffix), testID, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	err = WriteNarrow[uint16](w, "n16", 64*narrowStep, func(lo int, vals []uint64) {
		if lo == narrowStep {
			w.f.Close()
			w.closeDirect()
		}
	})
	if err == nil || !errors.Is(err, os.ErrClosed) {
		t.Errorf("writing into a closed file: %v, want %v", err, os.ErrClosed)
	}
}
