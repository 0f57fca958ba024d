package graph

import (
	"sort"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// shortestPathTree is the breadth-first tree of the retention graph from
// the GC roots and system classes (with includeWeak, referents count as
// edges too): the parent of an object is the one before it on a shortest
// path, rootParent for the roots, noParent for the objects no root
// reaches.
//
// The tree is the one a first-in first-out queue gives, taking the roots
// in gcRoots order and each object's successors in forEachSucc order, then
// its referents: the parent of an object is the first object in queue
// order that references it. The search goes one level (one distance from
// the roots) at a time, which is that queue cut where its distance grows;
// the big levels are searched in parallel (see searchLevel).
//
// While it runs, an object's parent is the parent's position in the
// queue, which the search keeps whole (a table of the reached objects, in
// a scratch file past the memory budget, written in order); the positions
// become objects at the end, in one pass in object order. A level's
// parents are then written a window of the table at a time, never at
// random across it (see searchLevel): on a heap bigger than memory the
// table is a scratch file, and a page of one written to at random is
// written back to the disk and dirtied again many times over.
func shortestPathTree(h *model.Heap, includeWeak bool) []uint32 {
	return searchPaths(h, includeWeak, false, nil)
}

// searchPaths is shortestPathTree, calling onLevel, when set, with each
// level of the search once its objects have their parents (in parent, as
// positions in the queue: the object at prevAt+i of the queue is
// prev[i]), and the level before it (nil for the roots).
//
// It searches on one processor when beside is set, the parent table is at
// most one window of inWindows and there are at most besideProcessors:
// the search then runs beside the dominator tree's depth-first walk,
// which holds a processor of its own, then beside its phases, which keep
// the others busy, and a level searched in parallel takes more processor
// time than one searched in turn (its notes, and two more reads of the
// parents at random), to finish sooner only while a processor is free: on
// 2 processors the bigdump's build took 3.3 CPU-s (9%) less with its
// search in turn. The windows keep a parent table bigger than one window
// from being written at random all over, which a search in turn would do.
func searchPaths(h *model.Heap, includeWeak, beside bool, onLevel func(parent []uint32, prevAt uint32, prev, level []model.ObjectIndex)) []uint32 {
	n := h.NumObjects()
	p := pathSearch{
		serial:  beside && n <= scatterWindow && parallel.Workers() <= besideProcessors,
		g:       retentionGraph{h: h},
		parent:  bigmem.Make[uint32](n),
		reached: bigmem.Make[uint64]((n + 63) / 64),
		queue:   objectIndexes(bigmem.Make[uint32](n))[:0],
	}
	defer bigmem.Free(p.reached)
	defer bigmem.Free(p.queue)
	if includeWeak {
		p.weak = h.Referents()
	}
	for i := range p.parent {
		p.parent[i] = noParent
	}
	for _, s := range p.g.gcRoots() {
		p.parent[s] = rootParent
		p.reached.Add(s)
		p.queue = append(p.queue, s)
	}
	if onLevel != nil {
		onLevel(p.parent, 0, nil, p.queue)
	}
	for at := 0; at < len(p.queue); {
		end := len(p.queue)
		p.searchLevel(at, end)
		if onLevel != nil && len(p.queue) > end {
			onLevel(p.parent, uint32(at), p.queue[at:end], p.queue[end:])
		}
		at = end
	}
	for _, found := range p.found {
		bigmem.Free(found)
	}
	parallel.ForChunks(n, parallel.ObjectChunk, func(_, lo, hi int) {
		for i, at := range p.parent[lo:hi] {
			if at < rootParent {
				p.parent[lo+i] = uint32(p.queue[at])
			}
		}
	})
	return p.parent
}

// besideProcessors is the most processors with which searchPaths
// searches beside the dominator tree in turn: with more, the dominator
// tree's phases leave processors idle that a search in parallel takes
// (not measured: the machines here have 2).
const besideProcessors = 2

// pathSearch is the state of shortestPathTree's search.
type pathSearch struct {
	// serial says that every level is searched in turn.
	serial bool
	g      retentionGraph
	// weak are the referent edges the search follows, nil for none.
	weak []model.WeakRef
	// parent is each object's parent's position in queue, rootParent
	// for a root, noParent while it has none.
	parent []uint32
	// reached has a bit per object, set once the object has its parent.
	reached ObjectBits
	// queue holds the objects reached, in the order a first-in first-out
	// queue takes them, level after level.
	queue []model.ObjectIndex
	// found are, per part of a parallel level, the references of its
	// objects to objects not reached before the level, as s<<32|at (s
	// referenced by the object at position at of the queue), then only
	// those that reached s; tables of bigmem.Append, kept from level to
	// level for their memory.
	found [][]uint64
}

// parallelLevel is the least level size searched in parallel: on smaller
// ones handing out the work costs more than it saves.
var parallelLevel = 1 << 13

// levelParts is how many parts per goroutine a level searched in
// parallel is cut into, so that parts with objects of many references do
// not hold the others up.
const levelParts = 8

// successors returns u's successors in the order the search takes them:
// its references, its class object (model.NoObject when it has none),
// then, when the search follows them, its referents. The search's loops
// run over them directly, without a call per successor.
func (p *pathSearch) successors(u model.ObjectIndex) (refs []model.ObjectIndex, class model.ObjectIndex, weak []model.WeakRef) {
	refs, class = p.g.h.Refs(u), p.g.classObject(u)
	if p.weak != nil {
		from := sort.Search(len(p.weak), func(w int) bool { return p.weak[w].From >= u })
		to := from
		for to < len(p.weak) && p.weak[to].From == u {
			to++
		}
		weak = p.weak[from:to]
	}
	return refs, class, weak
}

// searchLevel gives a parent to every object that the objects of the
// level at positions [at, end) of the queue reference and that has none,
// and appends those objects to the queue in the order a first-in
// first-out queue would have taken them.
//
// A big level is searched in parallel, in parts of consecutive objects,
// in three passes. First each part notes, in order, the references of
// its objects to objects not reached before the level. Then each
// referenced object's parent becomes the least position of an object
// referencing it, one window of the parent table after the other (see
// inWindows), every part's notes read for each. Last each part keeps, of
// what it noted, the objects whose parent is the position that noted
// them, each once: the first time noted, which is the first reference
// of the parent to it. The parent is the first object of the level that
// references the object, which is the queue's parent, and the kept
// objects in part order are in the order the queue took them.
func (p *pathSearch) searchLevel(at, end int) {
	if p.serial || end-at < parallelLevel || parallel.Workers() == 1 {
		var pacer bigmem.Pacer
		for pos := at; pos < end; pos++ {
			pacer.Step()
			refs, class, weak := p.successors(p.queue[pos])
			for _, s := range refs {
				p.adopt(s, uint32(pos))
			}
			if class != model.NoObject {
				p.adopt(class, uint32(pos))
			}
			for _, w := range weak {
				p.adopt(w.To, uint32(pos))
			}
		}
		return
	}
	parts := min(parallel.Workers()*levelParts, end-at)
	for len(p.found) < parts {
		p.found = append(p.found, nil)
	}
	partStart := func(k int) int { return at + k*(end-at)/parts }
	parallel.ForChunks(parts, 1, func(_, k, _ int) {
		found := p.found[k][:0]
		var pacer bigmem.Pacer
		note := func(s model.ObjectIndex, pos int) {
			if !p.reached.Has(s) {
				found = bigmem.AppendOne(found, uint64(s)<<32|uint64(pos))
			}
		}
		for pos := partStart(k); pos < partStart(k+1); pos++ {
			pacer.Step()
			refs, class, weak := p.successors(p.queue[pos])
			for _, s := range refs {
				note(s, pos)
			}
			if class != model.NoObject {
				note(class, pos)
			}
			for _, w := range weak {
				note(w.To, pos)
			}
		}
		p.found[k] = found
	})
	inWindows(parts, 1, len(p.parent), func(lo, hi uint32, from, to int) {
		for _, found := range p.found[from:to] {
			for _, note := range found {
				if s := uint32(note >> 32); s-lo < hi-lo {
					parallel.LowerTo(&p.parent[s], uint32(note))
				}
			}
		}
	})
	parallel.ForChunks(parts, 1, func(_, k, _ int) {
		found, kept := p.found[k], 0
		for _, note := range found {
			s := model.ObjectIndex(note >> 32)
			if p.parent[s] == uint32(note) && p.reached.AddFirst(s) {
				found[kept] = note
				kept++
			}
		}
		p.found[k] = found[:kept]
	})
	for _, kept := range p.found[:parts] {
		for _, note := range kept {
			p.queue = append(p.queue, model.ObjectIndex(note>>32))
		}
	}
}

// adopt makes the object at position pos of the queue the parent of s,
// and appends s to the queue, when s has no parent yet: a step of the
// serial search.
func (p *pathSearch) adopt(s model.ObjectIndex, pos uint32) {
	if p.parent[s] != noParent {
		return
	}
	p.parent[s] = pos
	p.reached.Add(s)
	p.queue = append(p.queue, s)
}
