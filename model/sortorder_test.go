package model

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestSortOrderInRanges sorts id lists shaped as dumps send them (ascending
// runs of several lengths, repeated ids, values past 32 bits) with every
// pass cut into ranges of one arrival upwards on several processors, and
// compares each order with a stable sort by id.
func TestSortOrderInRanges(t *testing.T) {
	defer func(m, procs int) { minRange, _ = m, runtime.GOMAXPROCS(procs) }(minRange, runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(22, 2))
	var lists [][]uint64
	for _, n := range []int{0, 1, 2, 3, 17, 1000, 5000} {
		for _, runs := range []int{1, 2, 5, 40} {
			ids := make([]uint64, 0, n)
			for r := range runs {
				next := uint64(rng.IntN(1<<20)) << rng.IntN(20)
				for len(ids) < n*(r+1)/runs {
					ids = append(ids, next)
					next += uint64(rng.IntN(3)) * 8
				}
			}
			lists = append(lists, ids)
		}
	}
	for _, ids := range lists {
		want := make([]uint32, len(ids))
		for a := range want {
			want[a] = uint32(a)
		}
		slices.SortStableFunc(want, func(a, b uint32) int { return cmp.Compare(ids[a], ids[b]) })
		var list splitList[uint64]
		list.appendSlice(ids)
		for _, procs := range []int{1, 2, 3, 8} {
			for _, m := range []int{1, 7, 1 << 40} {
				runtime.GOMAXPROCS(procs)
				minRange = m
				if got := sortOrder(&list); !slices.Equal(got, want) {
					t.Fatalf("%d ids on %d processors, ranges of at least %d: order %v, want %v", len(ids), procs, m, got, want)
				}
			}
		}
	}
}
