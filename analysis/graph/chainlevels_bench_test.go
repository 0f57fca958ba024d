package graph

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
)

// BenchmarkStrongPathsLongList times the shortest-path search of a linked
// list of 2^20 nodes, a level per node, without and with its class
// chains: what a level costs beyond its objects.
func BenchmarkStrongPathsLongList(b *testing.B) {
	const n = 1 << 20
	g := analysistest.RandomGraph{Succ: make([][]int, n), Roots: []int{0}}
	for v := range n - 1 {
		g.Succ[v] = []int{v + 1}
	}
	h, _, _ := g.Load(b)
	b.Run("paths", func(b *testing.B) {
		for b.Loop() {
			StrongPaths(h)
		}
	})
	b.Run("paths+chains", func(b *testing.B) {
		for b.Loop() {
			StrongPathsWithChains(h)
		}
	})
}
