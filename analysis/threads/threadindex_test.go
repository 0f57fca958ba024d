package threads

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/internal/testload"
)

// TestThreadEdgesKept: the contracted graph found once (as an index keeps
// it) gives every thread the bytes the definition gives; edges of another
// dominator tree are not used.
func TestThreadEdgesKept(t *testing.T) {
	for _, name := range []string{"jdk17-inspect-before.hprof.gz", "jdk25-inspect-after.hprof.gz", "jdk17-default.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			h, r := testload.Fixture(t, name)
			want := naiveThreadRetained(h, r)
			edges, err := ThreadEdges(h, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(edges.edges) == 0 || !edges.of(r) {
				t.Fatalf("%d edges, of the tree: %v", len(edges.edges), edges.of(r))
			}
			got, err := threadRetained(h, r, edges)
			if err != nil {
				t.Fatal(err)
			}
			for k := range want {
				if got[k] != want[k] {
					t.Errorf("thread serial %d: %d bytes retained over the kept edges, the definition gives %d", h.Threads[k].Serial, got[k], want[k])
				}
			}
			other, err := graph.ComputeRetention(h, graph.RetentionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if edges.of(other) {
				t.Error("the edges are taken for another dominator tree's")
			}
		})
	}
}
