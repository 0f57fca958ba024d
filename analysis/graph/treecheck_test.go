package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
)

// serialPathTreeFault is checkPathTree by its definition, in one pass in
// object order: the first object whose chain of parents comes back to
// itself or to an object climbed before on it, "" when every chain ends.
func serialPathTreeFault(up []uint32) string {
	n := uint32(len(up))
	ends := make([]bool, n)
	for start := range n {
		seen := map[uint32]bool{}
		var walk []uint32
		for i := start; i < n && !ends[i]; i = up[i] {
			if seen[i] {
				return fmt.Sprintf("cycle through object %d", i)
			}
			seen[i] = true
			walk = append(walk, i)
		}
		for _, i := range walk {
			ends[i] = true
		}
	}
	return ""
}

// TestPathTreeCheckInParallel: the check on every core (four goroutines,
// chunks of seven objects) finds what one pass finds, the same first
// cycle, on random forests with and without cycles planted.
func TestPathTreeCheckInParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	for trial := range 300 {
		n := 1 + rng.IntN(200)
		up := make([]uint32, n)
		for i := range up {
			switch {
			case i == 0 || rng.IntN(10) == 0:
				up[i] = []uint32{noParent, rootParent}[rng.IntN(2)]
			default:
				up[i] = uint32(rng.IntN(i)) // an earlier object: a forest
			}
		}
		for range rng.IntN(3) { // cycles, of one object or more
			a, b := rng.IntN(n), rng.IntN(n)
			up[a], up[b] = uint32(b), uint32(a)
		}
		want := serialPathTreeFault(up)
		for _, procs := range []int{1, 4} {
			analysistest.WithParallelism(procs, func() {
				err := checkPathTree(up)
				got := ""
				if err != nil {
					got = err.Error()
				}
				if want == "" && err != nil || want != "" && (err == nil || got[len(got)-len(want):] != want) {
					t.Fatalf("trial %d, %d procs: %q, one pass finds %q (parents %v)", trial, procs, got, want, up)
				}
			})
		}
	}
}

// TestPathTreeCheckNoFalseCycle: sixteen goroutines climbing the same
// chains at once, on a deep random tree without a cycle, never take an
// object another goroutine is marking for one on a cycle (a goroutine
// whose marking stopped at another's mark once kept objects on its walk
// that were not yet known to end: a false cycle on the 2.29 GB dump).
func TestPathTreeCheckNoFalseCycle(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 22))
	n := 1 << 18
	up := make([]uint32, n)
	for i := range up {
		// Chains climb to objects of later chunks, where the other
		// goroutines climb too.
		up[i] = uint32(i + 1 + rng.IntN(8))
		if int(up[i]) >= n {
			up[i] = rootParent
		}
	}
	analysistest.WithParallelism(16, func() {
		for run := range 20 {
			if err := checkPathTree(up); err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
		}
	})
}
