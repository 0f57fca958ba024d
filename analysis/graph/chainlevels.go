package graph

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// chainLevels works out a ClassChains level by level of a shortest path
// tree, as its breadth-first search finds the levels, with no table
// that grows with the number of chains but the build's tables
// (model/bigmem) and a few per class.
//
// An object's class chain is its parent's chain followed by its link:
// its class, or the class it stands for when it is a class object. Two
// objects of a level have the same chain when their parents' chains and
// their links are the same, and objects of different levels never do.
// So the chains of a level are numbered from those of the level before:
// its objects are sorted by (their parent's chain number, their link),
// and each run of equal pairs is a chain, numbered in run order. The
// numbers are ranks within the level (below the level's size), so the
// pairs stay small enough to sort as numbers. A run's length is its
// chain's count, its least object its first instance.
type chainLevels struct {
	h       *model.Heap
	parent  []uint32
	classes *classObjects
	// others is the link code of the objects without a class; 2c is
	// class c's, 2c+1 that of the class object of class c.
	others uint32
	// chainOf are the chain numbers of the objects of the level keyed
	// last, by position; chains is how many there are.
	chainOf []uint32
	chains  uint64
	// next, keys, scratch and spare are work tables, kept from level to
	// level.
	next    []uint32
	keys    []uint64
	scratch []uint64
	spare   []uint64
	// dense numbers the link codes met in a level, 1 up (0: none), in
	// code order; codes lists them.
	dense []uint32
	codes []uint32
	// top are the chains of each class holding most instances, at most
	// classChainsKept, the least held first (a heap, see chainWorse).
	top [][]chainGroup
}

func newChainLevels(h *model.Heap, parent []uint32) *chainLevels {
	k := len(h.Classes)
	return &chainLevels{h: h, parent: parent, classes: newClassObjects(h), others: uint32(2 * k),
		dense: make([]uint32, 2*k+1), top: make([][]chainGroup, k)}
}

// link is object x's link code.
func (c *chainLevels) link(x model.ObjectIndex) uint32 {
	if k, ok := c.classes.of(x); ok {
		return 2*uint32(k) + 1
	}
	if k := c.h.ClassOf(x); int(k) < len(c.h.Classes) {
		return 2 * uint32(k)
	}
	return c.others
}

// grow returns table with room for n values, its contents dropped.
func grow[T bigmem.Number](table []T, n int) []T {
	if cap(table) >= n {
		return table[:n]
	}
	bigmem.Free(table)
	return bigmem.Make[T](n)
}

// free releases the work tables.
func (c *chainLevels) free() {
	bigmem.Free(c.chainOf)
	bigmem.Free(c.next)
	bigmem.Free(c.keys)
	bigmem.Free(c.scratch)
	bigmem.Free(c.spare)
	c.chainOf, c.next, c.keys, c.scratch, c.spare = nil, nil, nil, nil, nil
}

// add keys the objects of level, the level after prev (nil for the
// roots) in a breadth-first search: each object's parent is in prev, and
// the objects with the same parent follow each other in the order of
// their parents in prev.
func (c *chainLevels) add(prev, level []model.ObjectIndex) {
	m := len(level)
	if m == 0 {
		return
	}
	c.keys = grow(c.keys, m)
	// The link codes, numbered densely within the level.
	c.codes = c.codes[:0]
	for j, x := range level {
		code := c.link(x)
		c.keys[j] = uint64(code)
		if c.dense[code] == 0 {
			c.dense[code] = 1
			c.codes = append(c.codes, code)
		}
	}
	slices.Sort(c.codes)
	for i, code := range c.codes {
		c.dense[code] = uint32(i + 1)
	}
	// The parents' chains, each object's found by walking prev along
	// level.
	c.next = grow(c.next, m)
	parentChains := max(c.chains, 1)
	if prev == nil {
		clear(c.next)
	} else {
		p := 0
		for j, x := range level {
			for uint32(prev[p]) != c.parent[x] {
				p++
			}
			c.next[j] = c.chainOf[p]
		}
	}
	order := c.sortLevel(m, parentChains, uint64(len(c.codes)))
	c.numberRuns(level, order)
	for _, code := range c.codes {
		c.dense[code] = 0
	}
}

// sortLevel orders the positions of a level of m objects by (parent
// chain, dense link, position), the parent chains in c.next (below
// parentChains), the link codes in c.keys. It returns the sorted keys,
// each holding its position in its low posBits bits, through a
// levelOrder.
func (c *chainLevels) sortLevel(m int, parentChains, links uint64) levelOrder {
	posBits := uint(bits.Len(uint(m - 1)))
	linkBits := uint(bits.Len64(links - 1))
	chainBits := uint(bits.Len64(parentChains - 1))
	c.scratch = grow(c.scratch, m)
	if posBits+linkBits+chainBits <= 64 {
		for j := range m {
			c.keys[j] = (uint64(c.next[j])<<linkBits|uint64(c.dense[c.keys[j]]-1))<<posBits | uint64(j)
		}
		sorted := sortBits(c.keys, c.scratch, posBits, linkBits+chainBits)
		return levelOrder{keys: sorted, posBits: posBits, linkBits: linkBits}
	}
	// Too many bits for one key: by link first, then, stably, by parent
	// chain, each sort with the position of the one before.
	for j := range m {
		c.keys[j] = uint64(c.dense[c.keys[j]]-1)<<posBits | uint64(j)
	}
	byLink := sortBits(c.keys, c.scratch, posBits, linkBits)
	other := c.keys
	if &byLink[0] == &c.keys[0] {
		other = c.scratch
	}
	c.spare = grow(c.spare, m)
	mask := uint64(1)<<posBits - 1
	for i, v := range byLink {
		other[i] = uint64(c.next[v&mask])<<32 | uint64(i)
	}
	sorted := sortBits(other, c.spare, 32, chainBits)
	return levelOrder{keys: sorted, posBits: 32, byLink: byLink, linkPosBits: posBits}
}

// levelOrder is a level's objects sorted by (parent chain, link).
type levelOrder struct {
	keys    []uint64
	posBits uint
	// linkBits is how many bits of a key above its position hold the
	// link; 0 with byLink set, where a key's position is one in byLink,
	// whose keys are the link above the position in linkPosBits bits.
	linkBits    uint
	byLink      []uint64
	linkPosBits uint
}

// at returns the i-th object's position in the level, and its key
// without the position: equal for objects of the same chain.
func (o levelOrder) at(i int) (pos int, chain uint64) {
	v := o.keys[i]
	pos = int(v & (1<<o.posBits - 1))
	chain = v >> o.posBits
	if o.byLink != nil {
		w := o.byLink[pos]
		pos = int(w & (1<<o.linkPosBits - 1))
		chain = chain<<32 | w>>o.linkPosBits
	}
	return pos, chain
}

// link returns the dense link of a key without its position.
func (o levelOrder) link(chain uint64) uint64 {
	if o.byLink != nil {
		return chain & (1<<32 - 1)
	}
	return chain & (1<<o.linkBits - 1)
}

// numberRuns numbers the chains of level in the order o, each run of
// equal keys a chain, into c.chainOf, and offers each chain of instances
// to its class's top.
func (c *chainLevels) numberRuns(level []model.ObjectIndex, o levelOrder) {
	m := len(level)
	c.chainOf = grow(c.chainOf, m)
	chain := uint32(0)
	for i := 0; i < m; chain++ {
		pos, key := o.at(i)
		first := level[pos]
		c.chainOf[pos] = chain
		count := 1
		for i++; i < m; i++ {
			p, k := o.at(i)
			if k != key {
				break
			}
			c.chainOf[p] = chain
			first = min(first, level[p])
			count++
		}
		if code := c.codes[o.link(key)]; code != c.others && code%2 == 0 {
			c.offer(int(code/2), chainGroup{example: first, count: int64(count)})
		}
	}
	c.chains = uint64(chain)
}

// chainWorse reports whether chain a holds fewer instances than b, or as
// many with a later first instance: the order of a class's chains from
// the last kept.
func chainWorse(a, b chainGroup) bool {
	return a.count < b.count || a.count == b.count && a.example > b.example
}

// offer keeps chain g among class k's top when it is one of the
// classChainsKept best: top[k] is a heap, its worst chain first.
func (c *chainLevels) offer(k int, g chainGroup) {
	top := c.top[k]
	if len(top) < classChainsKept {
		top = append(top, g)
		for i := len(top) - 1; i > 0; {
			up := (i - 1) / 2
			if !chainWorse(top[i], top[up]) {
				break
			}
			top[i], top[up] = top[up], top[i]
			i = up
		}
		c.top[k] = top
		return
	}
	if !chainWorse(top[0], g) {
		return
	}
	top[0] = g
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(top) && chainWorse(top[l], top[worst]) {
			worst = l
		}
		if r < len(top) && chainWorse(top[r], top[worst]) {
			worst = r
		}
		if worst == i {
			break
		}
		top[i], top[worst] = top[worst], top[i]
		i = worst
	}
}

// summary counts every class's instances and those no root reaches, in
// parallel ranges of objects, and gives the ClassChains of tree t with
// the chains kept.
func (c *chainLevels) summary(t *PathTree) *ClassChains {
	c.free()
	h := c.h
	workers := parallel.Workers()
	targets := make([][]int64, workers)
	unreached := make([][]int64, workers)
	parallel.ForChunks(h.NumObjects(), parallel.ObjectChunk, func(w, lo, hi int) {
		if targets[w] == nil {
			targets[w], unreached[w] = make([]int64, len(h.Classes)), make([]int64, len(h.Classes))
		}
		for i := lo; i < hi; i++ {
			obj := model.ObjectIndex(i)
			k := h.ClassOf(obj)
			if int(k) >= len(h.Classes) || c.classes.has(obj) {
				continue
			}
			targets[w][k]++
			if c.parent[obj] == noParent {
				unreached[w][k]++
			}
		}
	})
	s := &ClassChains{tree: t, classes: map[model.ClassIndex]classChainsOf{}}
	for k := range h.Classes {
		cc := classChainsOf{Class: int32(k)}
		for w := range targets {
			if targets[w] != nil {
				cc.Targets += targets[w][k]
				cc.Unreached += unreached[w][k]
			}
		}
		if cc.Targets == 0 {
			continue
		}
		top := c.top[k]
		slices.SortFunc(top, func(a, b chainGroup) int {
			return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.example, b.example))
		})
		for _, g := range top {
			cc.Groups = append(cc.Groups, [2]int64{int64(g.example), g.count})
		}
		s.classes[model.ClassIndex(k)] = cc
	}
	return s
}
