package parallel

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// withProcs runs fn with GOMAXPROCS procs.
func withProcs(procs int, fn func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	fn()
}

// TestSortBits: SortBits orders keys as a sort by value does, keys of
// equal bits in their order, in one range and in parallel ranges.
func TestSortBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{1, 3, 100, 5000, 300_000} {
		for _, nbits := range []uint{0, 1, 11, 12, 23, 40} {
			posBits := uint(20)
			keys := make([]uint64, n)
			for j := range keys {
				keys[j] = (rng.Uint64()&(1<<nbits-1))<<posBits | uint64(j)
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			for _, procs := range []int{1, 4} {
				withProcs(procs, func() {
					got := SortBits(slices.Clone(keys), make([]uint64, n), posBits, nbits)
					if !slices.Equal(got, want) {
						t.Errorf("%d keys of %d bits, %d procs: not sorted", n, nbits, procs)
					}
				})
			}
		}
	}
}
