package graph

import (
	"sort"

	"github.com/hprofctl/hprofctl/model"
)

// This file keeps the serial dominator tree and breadth-first search that
// the parallel ones replaced, as they were, for the tests to compare the
// parallel ones with.

// serialSuccessors returns the successors of object i in the retention
// graph: its references, then its class object.
func serialSuccessors(h *model.Heap, i model.ObjectIndex) []model.ObjectIndex {
	out := append([]model.ObjectIndex(nil), h.Refs(i)...)
	if c := h.ClassOf(i); c != model.NoClass && h.Classes[c].Object != model.NoObject {
		out = append(out, h.Classes[c].Object)
	}
	return out
}

// serialRetention is a dominator tree per object: whether it is reachable
// (or kept), its immediate dominator (NoObject for the virtual root), and
// what it retains.
type serialRetention struct {
	reachable     []bool
	idom          []model.ObjectIndex
	retainedCount []int64
	retainedBytes []int64
}

// serialComputeRetention is ComputeRetention as it was before its phases
// ran in parallel: a recursive-free depth-first numbering, the
// predecessor table filled in object order, Lengauer and Tarjan's
// semidominators and the nearest common dominators.
func serialComputeRetention(h *model.Heap, o RetentionOptions) serialRetention {
	g := retentionGraph{h: h}
	n := h.NumObjects()
	order := make([]uint32, n)
	parent := make([]uint32, 1, n+1)
	rootRefs := g.gcRoots()
	serialDepthFirst(h, order, &parent, rootRefs)
	if o.KeepUnreachable && len(parent)-1 < n {
		extra := serialUnreachableTops(h, order)
		serialDepthFirst(h, order, &parent, extra)
		rootRefs = append(rootRefs, extra...)
		for i := range n {
			if order[i] == 0 {
				rootRefs = append(rootRefs, model.ObjectIndex(i))
				serialDepthFirst(h, order, &parent, []model.ObjectIndex{model.ObjectIndex(i)})
			}
		}
	}
	numbered := len(parent)
	lowest := append([]uint32(nil), parent...)
	for _, s := range rootRefs {
		lowest[order[s]] = 0
	}
	predStart := make([]uint32, numbered+1)
	for i, from := range order {
		if from == 0 {
			continue
		}
		for _, s := range serialSuccessors(h, model.ObjectIndex(i)) {
			w := order[s]
			switch {
			case from < w:
				lowest[w] = min(lowest[w], from)
			case from > w && lowest[w] != 0:
				predStart[w+1]++
			}
		}
	}
	for w := 1; w <= numbered; w++ {
		predStart[w] += predStart[w-1]
	}
	preds := make([]uint32, predStart[numbered])
	for i, from := range order {
		if from == 0 {
			continue
		}
		for _, s := range serialSuccessors(h, model.ObjectIndex(i)) {
			if w := order[s]; from > w && lowest[w] != 0 {
				preds[predStart[w]] = from
				predStart[w]++
			}
		}
	}
	copy(predStart[1:], predStart[:numbered])
	predStart[0] = 0

	semi := lowest
	label := make([]uint32, numbered)
	ancestor := append([]uint32(nil), parent...)
	var path []uint32
	for w := uint32(numbered - 1); w > 0; w-- {
		s := semi[w]
		for _, v := range preds[predStart[w]:predStart[w+1]] {
			path = path[:0]
			for x := v; ancestor[x] > w; x = ancestor[x] {
				path = append(path, x)
			}
			for k := len(path) - 1; k >= 0; k-- {
				x := path[k]
				a := ancestor[x]
				label[x] = min(label[x], label[a])
				ancestor[x] = ancestor[a]
			}
			s = min(s, label[v])
		}
		semi[w] = s
		label[w] = s
	}
	idom := parent
	for w := 1; w < numbered; w++ {
		x := idom[w]
		for x > semi[w] {
			x = idom[x]
		}
		idom[w] = x
	}

	vertex := make([]model.ObjectIndex, numbered)
	vertex[0] = model.NoObject
	for i, p := range order {
		if p != 0 {
			vertex[p] = model.ObjectIndex(i)
		}
	}
	count := make([]int64, numbered)
	bytes := make([]int64, numbered)
	for p := 1; p < numbered; p++ {
		count[p] = 1
		bytes[p] = h.ShallowBytes(vertex[p], o.Size)
	}
	for p := numbered - 1; p > 0; p-- {
		count[idom[p]] += count[p]
		bytes[idom[p]] += bytes[p]
	}
	out := serialRetention{
		reachable:     make([]bool, n),
		idom:          make([]model.ObjectIndex, n),
		retainedCount: make([]int64, n),
		retainedBytes: make([]int64, n),
	}
	for i, p := range order {
		if p != 0 {
			out.reachable[i] = true
			out.idom[i] = vertex[idom[p]]
			out.retainedCount[i] = count[p]
			out.retainedBytes[i] = bytes[p]
		}
	}
	return out
}

// serialUnreachableTops lists the objects order has no number for that
// no other such object references.
func serialUnreachableTops(h *model.Heap, order []uint32) []model.ObjectIndex {
	referenced := make([]bool, len(order))
	for i, p := range order {
		if p == 0 {
			for _, s := range serialSuccessors(h, model.ObjectIndex(i)) {
				if s != model.ObjectIndex(i) {
					referenced[s] = true
				}
			}
		}
	}
	var tops []model.ObjectIndex
	for i, p := range order {
		if p == 0 && !referenced[i] {
			tops = append(tops, model.ObjectIndex(i))
		}
	}
	return tops
}

// serialDepthFirst numbers the objects reachable from starts that have no
// number yet, in depth-first preorder after the numbers already given,
// recording each one's tree parent.
func serialDepthFirst(h *model.Heap, order []uint32, parent *[]uint32, starts []model.ObjectIndex) {
	type frame struct {
		num    uint32
		succ   []model.ObjectIndex
		cursor int
	}
	var stack []frame
	visit := func(obj model.ObjectIndex, from uint32) {
		num := uint32(len(*parent))
		order[obj] = num
		*parent = append(*parent, from)
		stack = append(stack, frame{num: num, succ: serialSuccessors(h, obj)})
	}
	for _, s := range starts {
		if order[s] != 0 {
			continue
		}
		visit(s, 0)
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.cursor == len(f.succ) {
				stack = stack[:len(stack)-1]
				continue
			}
			next := f.succ[f.cursor]
			f.cursor++
			if order[next] == 0 {
				visit(next, f.num)
			}
		}
	}
}

// serialShortestPathTree is shortestPathTree as it was before its levels
// ran in parallel: a first-in first-out queue from the GC roots and
// system classes, successors in the retention graph's order, then
// referents.
func serialShortestPathTree(h *model.Heap, includeWeak bool) []uint32 {
	g := retentionGraph{h: h}
	parent := make([]uint32, h.NumObjects())
	for i := range parent {
		parent[i] = noParent
	}
	var queue []model.ObjectIndex
	for _, s := range g.gcRoots() {
		parent[s] = rootParent
		queue = append(queue, s)
	}
	weak := h.Referents()
	for k := 0; k < len(queue); k++ {
		u := queue[k]
		visit := func(s model.ObjectIndex) {
			if parent[s] == noParent {
				parent[s] = uint32(u)
				queue = append(queue, s)
			}
		}
		for _, s := range serialSuccessors(h, u) {
			visit(s)
		}
		if includeWeak {
			for w := sort.Search(len(weak), func(w int) bool { return weak[w].From >= u }); w < len(weak) && weak[w].From == u; w++ {
				visit(weak[w].To)
			}
		}
	}
	return parent
}
