package graph

import (
	"math/bits"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
)

// The depth-first numbering maps objects to preorder numbers (order) and
// numbers to objects (the vertices). The walk itself writes neither at
// random: it marks the objects it meets in a bitset (retentionGraph.seen,
// a bit per object where order took a word) and appends each object it
// numbers to the vertices, in preorder. order is then worked out from the
// vertices, and later the vertices again from order (keepTree), by
// scattering one into the other a window of the target table at a time
// (inWindows). On a heap bigger than memory both tables are scratch files,
// and a page of one written at random all over is written back to the
// disk and dirtied again many times over; a window's pages, written in
// one pass, stay dirty in the page cache until the window is done.

// scatterWindow is how many words of a table a scatter writes at a
// time: 512 MiB, under the dirty pages the kernel lets a machine of a
// few GiB and more hold before it writes them back (a tenth of its
// memory by default), and few passes over the source (five for 640
// million objects). Tests lower it so that small graphs take several
// windows.
var scatterWindow = 1 << 27

// inWindows calls fill for every window [lo, hi) of targets words of a
// table written at random, and within it for every chunk [from, to) of
// the items of the source, chunk items long, on every processor: fill
// writes the targets of the chunk's items that fall in the window. One
// window takes one pass over the source; a table of at most scatterWindow
// words, one window.
func inWindows(items, chunk, targets int, fill func(lo, hi uint32, from, to int)) {
	for lo := 0; lo < targets; lo += scatterWindow {
		hi := min(targets, lo+scatterWindow)
		parallel.ForChunks(items, chunk, func(_, from, to int) {
			fill(uint32(lo), uint32(hi), from, to)
		})
	}
}

// numberObjects fills order, zeroed, from the vertices the depth-first
// walks numbered (vertices[p] is the object numbered p, vertices[0] the
// virtual root) and the leaves they marked: each numbered object gets its
// number, each leaf leafMark, the others stay 0.
func numberObjects(order []uint32, vertices []model.ObjectIndex, leaf []uint64) {
	inWindows(len(vertices), parallel.ObjectChunk, len(order), func(lo, hi uint32, from, to int) {
		for k, obj := range vertices[from:to] {
			// The virtual root, VirtualRoot, is in no window.
			if uint32(obj)-lo < hi-lo {
				order[obj] = uint32(from + k)
			}
		}
	})
	forEachMarked(leaf, func(_, i int) { order[i] = leafMark })
}

// numberedVertices fills vertices, of the numbered objects and the
// virtual root, from order: vertices[p] becomes the object numbered p,
// vertices[0] the virtual root. The leaves, whose order is a number too
// by then (leafDominators), are left out by their bit in leaf.
func numberedVertices(vertices []model.ObjectIndex, order []uint32, leaf []uint64) {
	vertices[0] = VirtualRoot
	inWindows(len(order), parallel.ObjectChunk, len(vertices), func(lo, hi uint32, from, to int) {
		for k, p := range order[from:to] {
			if p-lo < hi-lo && p != 0 && !isLeafObject(leaf, from+k) {
				vertices[p] = model.ObjectIndex(from + k)
			}
		}
	})
}

// unseenBytes sums the shallow sizes of the objects the walks neither
// numbered nor marked a leaf: those the virtual root does not reach.
func (g *retentionGraph) unseenBytes(size model.SizeMode) int64 {
	var total int64
	n := g.h.NumObjects()
	for w, word := range g.seen {
		for unseen := ^word; unseen != 0; unseen &= unseen - 1 {
			if i := w*64 + bits.TrailingZeros64(unseen); i < n {
				total += ShallowBytes(g.h, model.ObjectIndex(i), size)
			}
		}
	}
	return total
}
