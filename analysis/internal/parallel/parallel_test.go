package parallel

import (
	"runtime"
	"slices"
	"testing"
)

// TestForChunksInOrder: every chunk is worked on once and added once, in
// chunk order, whatever the number of goroutines and however unevenly
// the chunks take.
func TestForChunksInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 7, 100, 1001} {
			var got []int
			ForChunksInOrder(n, 7, func(lo, hi int) func() {
				part := make([]int, 0, hi-lo)
				for i := lo; i < hi; i++ {
					if i%13 == 0 {
						runtime.Gosched() // some chunks finish late
					}
					part = append(part, i)
				}
				return func() { got = append(got, part...) }
			})
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d goroutines, %d items: added %v", procs, n, got)
			}
		}
	}
}
