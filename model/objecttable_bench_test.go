package model

import (
	"math/rand/v2"
	"testing"
)

// benchTable is a table of n objects as a JVM dump fills it: ids mostly
// ascending with gaps, a class object every 400 ids placed anywhere, up
// to three references each, half of them to a near object, and one in
// ten thousand dangling.
func benchTable(n int) (*objectTable, map[int][]uint64) {
	rng := rand.New(rand.NewPCG(7, 8))
	ids := make([]uint64, n)
	addr := uint64(0x7_0000_0000)
	classes := n / 400
	for i := classes; i < n; i++ {
		addr += 8 * uint64(2+rng.IntN(7))
		ids[i] = addr
	}
	for i := 0; i < classes; i++ {
		ids[i] = 0x7_0000_0000 + 8*uint64(rng.IntN(n*4))
	}
	t := &objectTable{trackOffsets: true}
	t.refs.wide = true
	for i := 0; i < n; i++ {
		t.pos = int64(i) * 40
		t.add(ids[i], ClassIndex(i%3000), uint32(i%17))
		for range rng.IntN(4) {
			var r uint64
			if rng.IntN(2) == 0 {
				j := min(max(i+rng.IntN(2000)-1000, 0), n-1)
				r = ids[j]
			} else {
				r = ids[rng.IntN(n)]
			}
			if rng.IntN(10000) == 0 {
				r += 8
			}
			t.addRef(r)
		}
	}
	return t, map[int][]uint64{}
}

// BenchmarkResolveTable measures resolve on 8 M objects: sorting, gathering
// and resolving the references.
func BenchmarkResolveTable(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t, late := benchTable(8 << 20)
		b.StartTimer()
		h := Heap{Classes: benchClasses()}
		if _, err := t.resolve(&h, late, func(string) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchClasses are the 3000 classes of benchTable's objects, every fourth
// one an int array class.
func benchClasses() []Class {
	classes := make([]Class, 3000)
	for c := range classes {
		if c%4 == 0 {
			classes[c].Elem = TypeInt
		}
	}
	return classes
}
