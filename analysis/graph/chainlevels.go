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
//
// Each step runs in parallel ranges: the keys of the objects, their
// sort (parallel.SortBits), and the runs.
type chainLevels struct {
	h *model.Heap
	// parent is each object's parent in the tree: an object, or with
	// positions, while the breadth-first search runs, the parent's
	// position in the search's queue, prevAt that of the level before
	// the one added.
	parent    []uint32
	positions bool
	prevAt    uint32
	classes   *classObjects
	// others is the link of the objects without a class; 2c is class
	// c's, 2c+1 that of the class object of class c. linkBits holds
	// any link.
	others   uint32
	linkBits uint
	// chainOf are the chain numbers of the objects of the level keyed
	// last, by position; chains is how many there are.
	chainOf []uint32
	chains  uint64
	// keys, scratch, byLink and pairOf are work tables, kept from level
	// to level.
	keys    []uint64
	scratch []uint64
	byLink  []uint64
	pairOf  []uint32
	// top are, per worker, the chains of each class holding most
	// instances, at most classChainsKept, the least held first (a heap,
	// see chainWorse).
	top [][][]chainGroup
}

// chainKeyBits is how many bits a level's key of a position, a link and
// a parent chain may take to be sorted once; more are sorted by link,
// then by parent chain. Tests lower it.
var chainKeyBits uint = 64

func newChainLevels(h *model.Heap, parent []uint32) *chainLevels {
	k := len(h.Classes)
	return &chainLevels{h: h, parent: parent, classes: newClassObjects(h), others: uint32(2 * k),
		linkBits: uint(bits.Len(uint(2 * k))), top: make([][][]chainGroup, parallel.Workers())}
}

// link is object x's link.
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
	c.freeSortTables()
	bigmem.Free(c.chainOf)
	bigmem.Free(c.pairOf)
	c.chainOf, c.pairOf = nil, nil
}

// freeSortTables releases the tables of a level that is sorted, while
// levels are counted (countPairs).
func (c *chainLevels) freeSortTables() {
	bigmem.Free(c.keys)
	bigmem.Free(c.scratch)
	bigmem.Free(c.byLink)
	c.keys, c.scratch, c.byLink = nil, nil, nil
}

// levelParallel is the least level size whose keys and runs are worked
// out in parallel.
var levelParallel = 1 << 16

// levelRanges cuts [0, n) into as many ranges as goroutines work on it:
// the start of range k is at(k).
func levelRanges(n int) (ranges int, at func(k int) int) {
	ranges = 1
	if n >= levelParallel {
		ranges = min(parallel.Workers(), n)
	}
	return ranges, func(k int) int { return k * n / ranges }
}

// add keys the objects of level, the level after prev (nil for the
// roots) in a breadth-first search: each object's parent is in prev, and
// the objects with the same parent follow each other in the order of
// their parents in prev. With c.positions the parents are positions in
// the search's queue, prev[i] at prevAt+i.
func (c *chainLevels) add(prevAt uint32, prev, level []model.ObjectIndex) {
	c.prevAt = prevAt
	m := len(level)
	if m == 0 {
		return
	}
	if m <= smallLevel {
		c.addSmall(prev, level)
		return
	}
	if over, pairs := bits.Mul64(max(c.chains, 1), uint64(c.others+1)); over == 0 && pairs <= uint64(m)/countedPairsPer {
		c.countPairs(prev, level, pairs)
		return
	}
	bigmem.Free(c.pairOf)
	c.pairOf = nil
	posBits := uint(bits.Len(uint(m - 1)))
	chainBits := uint(bits.Len64(max(c.chains, 1) - 1))
	once := posBits+c.linkBits+chainBits <= chainKeyBits
	c.keys = grow(c.keys, m)
	c.scratch = grow(c.scratch, m)
	ranges, at := levelRanges(m)
	parallel.ForChunks(ranges, 1, func(_, k, _ int) {
		lo, hi := at(k), at(k+1)
		p := 0
		for j := lo; j < hi; j++ {
			x := level[j]
			chain := uint64(c.parentChain(prev, &p, x))
			if once {
				c.keys[j] = (chain<<c.linkBits|uint64(c.link(x)))<<posBits | uint64(j)
			} else {
				c.keys[j] = uint64(c.link(x))<<posBits | uint64(j)
				c.scratch[j] = chain
			}
		}
	})
	var o levelOrder
	if once {
		o = levelOrder{keys: parallel.SortBits(c.keys, c.scratch, posBits, c.linkBits+chainBits), posBits: posBits, linkBits: c.linkBits}
	} else {
		o = c.sortTwice(m, posBits, chainBits)
	}
	c.numberRuns(level, o)
}

// smallLevel is the largest level that addSmall keys, at most
// smallLevelMost: a long linked list makes a level of one object per
// node, millions of them, where the parallel steps' set-up (their
// closures and tables) would cost more than the level's own work. Tests
// set it to 0.
var smallLevel = smallLevelMost

// smallLevelMost bounds smallLevel: addSmall sorts on its stack.
const smallLevelMost = 64

// addSmall is add for a level of at most smallLevelMost objects, on the
// calling goroutine and without allocating: the objects are keyed by
// (parent chain, link), insertion-sorted with their positions, and
// each run of equal keys numbered and offered as add numbers them.
func (c *chainLevels) addSmall(prev, level []model.ObjectIndex) {
	type keyed struct {
		key uint64 // the parent's chain above the link
		pos int
	}
	var sorted [smallLevelMost]keyed
	m := len(level)
	p := 0
	for j, x := range level {
		k := keyed{key: uint64(c.parentChain(prev, &p, x))<<32 | uint64(c.link(x)), pos: j}
		i := j
		for ; i > 0 && sorted[i-1].key > k.key; i-- {
			sorted[i] = sorted[i-1]
		}
		sorted[i] = k
	}
	c.chainOf = grow(c.chainOf, m)
	chain := uint32(0)
	for i := 0; i < m; chain++ {
		key := sorted[i].key
		first, count := level[sorted[i].pos], int64(0)
		for ; i < m && sorted[i].key == key; i++ {
			c.chainOf[sorted[i].pos] = chain
			first = min(first, level[sorted[i].pos])
			count++
		}
		if link := uint32(key); link != c.others && link%2 == 0 {
			c.offer(0, int(link/2), chainGroup{example: first, count: count})
		}
	}
	c.chains = uint64(chain)
}

// parentChain is the chain number of object x's parent, found in prev,
// the level before x's, at its position there, or from position *p on,
// where it leaves *p: the objects of a level come in the order of their
// parents. It is 0 for an object of the first level (prev nil).
func (c *chainLevels) parentChain(prev []model.ObjectIndex, p *int, x model.ObjectIndex) uint32 {
	if prev == nil {
		return 0
	}
	want := c.parent[x]
	if c.positions {
		*p = int(want - c.prevAt)
	} else {
		for uint32(prev[*p]) != want {
			*p++
		}
	}
	return c.chainOf[*p]
}

// countedPairsPer is how many objects a level has at least per pair of a
// parent chain and a link that it could have for its pairs to be counted
// in a table rather than sorted: few chains over many objects, as most
// levels of a big heap hold. Tests raise it.
var countedPairsPer uint64 = 4

// countPairs keys the objects of level, the level after prev, when there
// are few pairs of a parent chain and a link (pairs of them): each
// range of objects counts the objects of each pair, and its least one,
// in tables of its own, which then add up; the pairs met are numbered in
// order, as a sort would meet them.
func (c *chainLevels) countPairs(prev, level []model.ObjectIndex, pairs uint64) {
	m := len(level)
	c.freeSortTables()
	c.pairOf = grow(c.pairOf, m)
	ranges, at := levelRanges(m)
	counts := make([][]uint32, ranges)
	firsts := make([][]uint32, ranges)
	parallel.ForChunks(ranges, 1, func(_, k, _ int) {
		count, first := bigmem.Make[uint32](int(pairs)), bigmem.Make[uint32](int(pairs))
		lo, hi := at(k), at(k+1)
		p := 0
		for j := lo; j < hi; j++ {
			x := level[j]
			pair := c.link(x) + c.parentChain(prev, &p, x)*(c.others+1)
			c.pairOf[j] = pair
			if count[pair] == 0 || uint32(x) < first[pair] {
				first[pair] = uint32(x)
			}
			count[pair]++
		}
		counts[k], firsts[k] = count, first
	})
	// counts[0] becomes each pair's chain number.
	number := counts[0]
	chains := uint32(0)
	for pair := range uint32(pairs) {
		g := chainGroup{example: model.NoObject}
		for k := range ranges {
			if counts[k][pair] > 0 {
				g.count += int64(counts[k][pair])
				g.example = min(g.example, model.ObjectIndex(firsts[k][pair]))
			}
		}
		if g.count == 0 {
			continue
		}
		if link := pair % (c.others + 1); link != c.others && link%2 == 0 {
			c.offer(0, int(link/2), g)
		}
		number[pair] = chains
		chains++
	}
	for k := range ranges {
		if k > 0 {
			bigmem.Free(counts[k])
		}
		bigmem.Free(firsts[k])
	}
	c.chainOf = grow(c.chainOf, m)
	parallel.ForChunks(ranges, 1, func(_, k, _ int) {
		for j := at(k); j < at(k+1); j++ {
			c.chainOf[j] = number[c.pairOf[j]]
		}
	})
	bigmem.Free(number)
	c.chains = uint64(chains)
}

// sortTwice orders a level of m objects whose keys hold each object's
// link above its position, and c.scratch its parent's chain, by link,
// then, stably, by parent chain: each sort with the position of the one
// before.
func (c *chainLevels) sortTwice(m int, posBits, chainBits uint) levelOrder {
	c.byLink = grow(c.byLink, m)
	copy(c.byLink, c.keys)
	byLink := parallel.SortBits(c.byLink, c.keys, posBits, c.linkBits)
	if &byLink[0] != &c.byLink[0] {
		copy(c.byLink, byLink)
	}
	mask := uint64(1)<<posBits - 1
	for i, v := range c.byLink {
		c.keys[i] = c.scratch[v&mask]<<32 | uint64(i)
	}
	sorted := parallel.SortBits(c.keys, c.scratch, 32, chainBits)
	return levelOrder{keys: sorted, posBits: 32, byLink: c.byLink, linkPosBits: posBits}
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

// link returns the link of a key without its position.
func (o levelOrder) link(chain uint64) uint32 {
	if o.byLink != nil {
		return uint32(chain)
	}
	return uint32(chain & (1<<o.linkBits - 1))
}

// numberRuns numbers the chains of level in the order o, each run of
// equal keys a chain, into c.chainOf, and offers each chain of instances
// to its class's top. The runs are numbered in parallel ranges, each
// range from the first run that starts in it, after counting the runs
// of the ranges before.
func (c *chainLevels) numberRuns(level []model.ObjectIndex, o levelOrder) {
	m := len(level)
	c.chainOf = grow(c.chainOf, m)
	ranges, at := levelRanges(m)
	starts := make([]int, ranges+1)
	firstChain := make([]uint32, ranges+1)
	parallel.ForChunks(ranges, 1, func(_, k, _ int) {
		i := at(k)
		if k > 0 {
			// The first run that starts here or later: a run going on
			// past the range's end is the next range's to number.
			_, before := o.at(i - 1)
			for ; i < m; i++ {
				if _, key := o.at(i); key != before {
					break
				}
			}
		}
		starts[k] = i
		runs := uint32(0)
		for prevKey := uint64(0); i < at(k+1); i++ {
			if _, key := o.at(i); i == starts[k] || key != prevKey {
				runs++
				prevKey = key
			}
		}
		firstChain[k+1] = runs
	})
	starts[ranges] = m
	for k := range ranges {
		firstChain[k+1] += firstChain[k]
	}
	parallel.ForChunks(ranges, 1, func(w, k, _ int) {
		chain := firstChain[k]
		for i := starts[k]; i < starts[k+1]; chain++ {
			pos, key := o.at(i)
			first := level[pos]
			c.chainOf[pos] = chain
			count := 1
			for i++; i < m; i++ {
				p, next := o.at(i)
				if next != key {
					break
				}
				c.chainOf[p] = chain
				first = min(first, level[p])
				count++
			}
			if link := o.link(key); link != c.others && link%2 == 0 {
				c.offer(w, int(link/2), chainGroup{example: first, count: int64(count)})
			}
		}
	})
	c.chains = uint64(firstChain[ranges])
}

// chainWorse reports whether chain a holds fewer instances than b, or as
// many with a later first instance: the order of a class's chains from
// the last kept.
func chainWorse(a, b chainGroup) bool {
	return a.count < b.count || a.count == b.count && a.example > b.example
}

// offer keeps chain g among class k's top of worker w when it is one of
// the classChainsKept best: the top is a heap, its worst chain first.
func (c *chainLevels) offer(w, k int, g chainGroup) {
	if c.top[w] == nil {
		c.top[w] = make([][]chainGroup, len(c.h.Classes))
	}
	top := c.top[w][k]
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
		c.top[w][k] = top
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
		var top []chainGroup
		for w := range c.top {
			if c.top[w] != nil {
				top = append(top, c.top[w][k]...)
			}
		}
		slices.SortFunc(top, func(a, b chainGroup) int {
			return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.example, b.example))
		})
		for _, g := range top[:min(len(top), classChainsKept)] {
			cc.Groups = append(cc.Groups, [2]int64{int64(g.example), g.count})
		}
		s.classes[model.ClassIndex(k)] = cc
	}
	return s
}
