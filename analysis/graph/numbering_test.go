package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hprofctl/hprofctl/model"
)

// withScatterWindow sets scatterWindow to words and returns what
// restores it.
func withScatterWindow(words int) (restore func()) {
	old := scatterWindow
	scatterWindow = words
	return func() { scatterWindow = old }
}

// TestNumberingScatteredInWindows: the depth-first numbering of a random
// subset of objects, some of the others leaves, turns into each object's
// number (leafMark for the leaves, 0 for the rest) and back into the
// object of each number, whatever the window the tables are written in
// (one word, seven, all of them) and on one or four goroutines.
func TestNumberingScatteredInWindows(t *testing.T) {
	const n = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	objects := rng.Perm(n)
	numbered, leaves := objects[:600], objects[600:700]
	vertices := []model.ObjectIndex{VirtualRoot}
	for _, obj := range numbered {
		vertices = append(vertices, model.ObjectIndex(obj))
	}
	leaf := make([]uint64, (n+63)/64)
	for _, obj := range leaves {
		leaf[obj/64] |= 1 << (obj % 64)
	}
	for _, window := range []int{1, 7, n} {
		for _, procs := range []int{1, 4} {
			name := fmt.Sprintf("windows of %d, %d procs", window, procs)
			withParallelism(procs, func() {
				defer withScatterWindow(window)()
				order := make([]uint32, n)
				numberObjects(order, vertices, leaf)
				want := make([]uint32, n)
				for p, obj := range numbered {
					want[obj] = uint32(p + 1)
				}
				for _, obj := range leaves {
					want[obj] = leafMark
				}
				for obj := range n {
					if order[obj] != want[obj] {
						t.Fatalf("%s: object %d numbered %d, want %d", name, obj, order[obj], want[obj])
					}
				}
				// By then a leaf's order is its dominator's number, which
				// must not make it that number's vertex.
				for _, obj := range leaves {
					order[obj] = uint32(1 + obj%len(numbered))
				}
				back := make([]model.ObjectIndex, len(vertices))
				numberedVertices(back, order, leaf)
				for p := range vertices {
					if back[p] != vertices[p] {
						t.Fatalf("%s: number %d is object %d, want %d", name, p, back[p], vertices[p])
					}
				}
			})
		}
	}
}
