package model

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestSortOrderInRanges sorts id lists shaped as dumps send them (ascending
// runs of several lengths, repeated ids within a run and across runs,
// values past 32 bits) with every
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
		// The same ids twice, as a dump that repeats objects sends them:
		// a short run, then a long one holding it, so that arrivals of
		// equal ids meet in every merge.
		var ids []uint64
		for k := range n {
			ids = append(ids, uint64(k/2)*8)
		}
		lists = append(lists, append(slices.Clone(ids[n/3:n/2]), ids...))
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

// BenchmarkSortOrder sorts 8 M arrivals shaped as the bigdump's (a JDK 17
// heap dump): an eighth of them first, in 400 ascending runs at random
// places, then the rest in one ascending run.
func BenchmarkSortOrder(b *testing.B) {
	const n, runs = 8 << 20, 400
	rng := rand.New(rand.NewPCG(3, 4))
	var list splitList[uint64]
	head := n / 8
	for r := range runs {
		next := 0x7_0000_0000 + 8*uint64(rng.IntN(n*4))
		for k := head * r / runs; k < head*(r+1)/runs; k++ {
			list.appendSlice([]uint64{next})
			next += 8 * uint64(1+rng.IntN(7))
		}
	}
	next := uint64(0x7_0000_0000)
	for range n - head {
		next += 8 * uint64(1+rng.IntN(7))
		list.appendSlice([]uint64{next})
	}
	b.ResetTimer()
	for range b.N {
		bigmem.Free(sortOrder(&list))
	}
}
