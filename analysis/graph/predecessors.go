package graph

import (
	"math"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// predecessors prepares the reversed graph over preorder numbers for
// semidominators. A predecessor v of w numbered below w counts only
// through its number, so lowest[w] keeps the least of them (the tree
// parent included: it is one) and only the predecessors numbered above w
// are listed, in CSR form: w's list ends at starts[2w], where w+1's
// begins, preds[starts[2w-2]:starts[2w]]. That leaves out the tree edges
// and most others, a large part of the table. The virtual root's children
// get the virtual root as lowest and nothing else: their semidominator
// and immediate dominator are the virtual root whatever else references
// them.
//
// The list ends take the even words of starts, and leave the odd ones to
// semidominators: there the word after the end of w+1's list holds w's
// label, beside its forest parent (see semidominators), so that a
// vertex's two words share a cache line.
//
// The tables written here (lowest, starts, preds) are written a window
// of vertices at a time, never at random across the whole graph: on a
// heap bigger than memory they are scratch files, and a page of one
// written to at random is written back to the disk and dirtied again
// many times over (at 32 GiB the pass that counted and filled the lists
// by atomic additions all over them dirtied 303 GB of pages, 37 times
// their size). One pass goes through every reference, in ranges of
// objects on every processor, and gathers the edges that lower a
// vertex's least predecessor or join its list, by the window of their
// target (gatherEdges); then each window's edges are counted, placed
// and listed by one goroutine, windows side by side (windowedEdges'
// count and list). Which worker gathered an edge first decides the
// order of its list: see semidominators for why that order does not
// matter.
func (g *retentionGraph) predecessors(order, parent []uint32) (lowest, starts, preds []uint32, err error) {
	numbered := len(parent)
	lowest = bigmem.Make[uint32](numbered)
	copy(lowest, parent)
	for _, s := range g.rootRefs {
		lowest[order[s]] = 0
	}
	g.leafReferrers = bigmem.Make[uint64]((len(order) + 63) / 64)
	edges := g.gatherEdges(order, lowest)
	defer edges.free()
	windows := edges.windows()
	starts = bigmem.MakeRandom[uint32](2*numbered + 2)
	listed := make([]uint64, windows)
	parallel.ForChunks(windows, 1, func(_, k, _ int) {
		listed[k] = edges.count(k, lowest, starts)
	})
	bases := make([]uint32, windows)
	var total uint64
	for k, n := range listed {
		bases[k] = uint32(total)
		total += n
	}
	if total > math.MaxUint32 {
		bigmem.Free(lowest)
		bigmem.Free(starts)
		return nil, nil, nil, errGraphTooLarge
	}
	preds = bigmem.Make[uint32](int(total))
	parallel.ForChunks(windows, 1, func(_, k, _ int) {
		edges.list(k, numbered, bases[k], starts, preds)
	})
	return lowest, starts, preds, nil
}

// windowShift sets the vertices of a window of predecessors' tables:
// 1<<windowShift of them, whose starts and lowest words take 48 MiB,
// well under the dirty pages the kernel lets a machine's page cache hold
// before it writes them back (a tenth of its memory, by default), and
// their predecessors. Tests lower it so that small graphs take several
// windows.
var windowShift uint = 22

// windowedEdges are the edges of the retention graph that predecessors
// lists or lowers a vertex's least predecessor by, gathered per worker
// and per window of target vertices: lists[worker][window] holds an edge
// from v to w as w<<32|v. An edge from v to w with v > w is listed; one
// with v < w lowers lowest[w].
type windowedEdges struct {
	lists [][][]uint64
}

// edgeBuffer is how many edges a worker gathers for a window before it
// appends them to the window's table.
const edgeBuffer = 256

// edgeSink gathers one worker's edges by window.
type edgeSink struct {
	pending [][]uint64 // per window, the edges not yet in its table
	lists   [][]uint64 // per window, the worker's table
}

// add gathers the edge from v to w.
func (s *edgeSink) add(v, w uint32) {
	k := w >> windowShift
	b := append(s.pending[k], uint64(w)<<32|uint64(v))
	if len(b) == edgeBuffer {
		s.lists[k] = bigmem.Append(s.lists[k], b...)
		b = b[:0]
	}
	s.pending[k] = b
}

// flush appends what is pending to the tables.
func (s *edgeSink) flush() {
	for k, b := range s.pending {
		if len(b) > 0 {
			s.lists[k] = bigmem.Append(s.lists[k], b...)
			s.pending[k] = b[:0]
		}
	}
}

// gatherEdges goes through the references of every numbered object once,
// on every processor, and gathers the edges to vertices numbered below
// their source whose lowest is not 0 (those to be listed), and those to
// vertices numbered above their source that lower its least predecessor
// as it was before the pass (the tree edges do not: the parent is the
// least already). It marks the objects with a reference to a leaf in
// g.leafReferrers (for leafDominators). lowest is only read.
func (g *retentionGraph) gatherEdges(order, lowest []uint32) *windowedEdges {
	windows := (len(lowest) + 1<<windowShift - 1) >> windowShift
	sinks := make([]edgeSink, parallel.Workers())
	for k := range sinks {
		sinks[k] = edgeSink{pending: make([][]uint64, windows), lists: make([][]uint64, windows)}
		for w := range sinks[k].pending {
			sinks[k].pending[w] = make([]uint64, 0, edgeBuffer)
		}
	}
	parallel.ForChunks(len(order), parallel.ObjectChunk, func(worker, lo, hi int) {
		sink := &sinks[worker]
		var pacer bigmem.Pacer
		referrers := objectMarks{bits: g.leafReferrers}
		// gather gathers the edge from from to s and reports whether s
		// is a leaf, which has no number: leafDominators finds its
		// immediate dominator.
		gather := func(from uint32, s model.ObjectIndex) bool {
			w := order[s]
			switch {
			case w == leafMark:
				return true
			case from < w && from < lowest[w], from > w && lowest[w] != 0:
				sink.add(from, w)
			}
			return false
		}
		for i := lo; i < hi; i++ {
			pacer.Step()
			from := order[i]
			if from == 0 || from == leafMark {
				continue
			}
			toLeaf := false
			for _, s := range g.h.Refs(model.ObjectIndex(i)) {
				toLeaf = gather(from, s) || toLeaf
			}
			if c := g.classObject(model.ObjectIndex(i)); c != model.NoObject {
				toLeaf = gather(from, c) || toLeaf
			}
			if toLeaf {
				referrers.mark(i)
			}
		}
		referrers.flush()
	})
	edges := &windowedEdges{lists: make([][][]uint64, len(sinks))}
	for k := range sinks {
		sinks[k].flush()
		edges.lists[k] = sinks[k].lists
	}
	return edges
}

// windows returns how many windows the edges are gathered in.
func (e *windowedEdges) windows() int { return len(e.lists[0]) }

// windowBounds returns the vertices of window k, of numbered ones.
func windowBounds(k, numbered int) (lo, hi int) {
	return k << windowShift, min(numbered, (k+1)<<windowShift)
}

// count goes through window k's edges: it lowers the least predecessor
// of their targets numbered above their source, and counts those of the
// others in starts[2w], returning how many there are.
func (e *windowedEdges) count(k int, lowest, starts []uint32) uint64 {
	var listed uint64
	for _, worker := range e.lists {
		for _, edge := range worker[k] {
			w, v := uint32(edge>>32), uint32(edge)
			if v < w {
				lowest[w] = min(lowest[w], v)
				continue
			}
			starts[2*w]++
			listed++
		}
	}
	return listed
}

// list turns the counts of window k into the starts of its vertices'
// lists, the first at base, and fills the lists, each from its start on,
// which leaves the start at the list's end.
func (e *windowedEdges) list(k, numbered int, base uint32, starts, preds []uint32) {
	lo, hi := windowBounds(k, numbered)
	next := base
	for w := lo; w < hi; w++ {
		next, starts[2*w] = next+starts[2*w], next
	}
	for _, worker := range e.lists {
		for _, edge := range worker[k] {
			if w, v := uint32(edge>>32), uint32(edge); v > w {
				preds[starts[2*w]] = v
				starts[2*w]++
			}
		}
	}
}

// free frees the edges' tables.
func (e *windowedEdges) free() {
	for _, worker := range e.lists {
		for _, list := range worker {
			bigmem.Free(list)
		}
	}
}
