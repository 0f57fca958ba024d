package graph

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// naiveClassChains is the class chains of the definition: every instance
// (class objects left out) keyed by the classes on its path from the
// root in the tree parent, a class object by the class it stands for,
// then per class the chains holding most instances, each as its least
// instance and its count, most first, equal counts by first instance.
func naiveClassChains(h *model.Heap, parent []uint32) map[model.ClassIndex]classChainsOf {
	standsFor := map[model.ObjectIndex]model.ClassIndex{}
	for k, c := range h.Classes {
		if c.Object != model.NoObject && int(c.Object) < h.NumObjects() {
			standsFor[c.Object] = model.ClassIndex(k)
		}
	}
	linkOf := func(x model.ObjectIndex) string {
		if k, ok := standsFor[x]; ok {
			return fmt.Sprintf("class %d", k)
		}
		if k := h.ClassOf(x); int(k) < len(h.Classes) {
			return fmt.Sprintf("%d", k)
		}
		return "none"
	}
	type group struct{ first, count int64 }
	byClass := map[model.ClassIndex]map[string]*group{}
	out := map[model.ClassIndex]classChainsOf{}
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		k := h.ClassOf(obj)
		if _, isClass := standsFor[obj]; isClass || int(k) >= len(h.Classes) {
			continue
		}
		cc := out[k]
		cc.Class = int32(k)
		cc.Targets++
		if parent[obj] == noParent {
			cc.Unreached++
			out[k] = cc
			continue
		}
		out[k] = cc
		var links []string
		for x := obj; ; x = model.ObjectIndex(parent[x]) {
			links = append(links, linkOf(x))
			if parent[x] == rootParent {
				break
			}
		}
		key := strings.Join(links, " <- ")
		if byClass[k] == nil {
			byClass[k] = map[string]*group{}
		}
		g := byClass[k][key]
		if g == nil {
			g = &group{first: int64(obj)}
			byClass[k][key] = g
		}
		g.count++
	}
	for k, groups := range byClass {
		var list [][2]int64
		for _, g := range groups {
			list = append(list, [2]int64{g.first, g.count})
		}
		slices.SortFunc(list, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(b[1], a[1]), cmp.Compare(a[0], b[0])) })
		cc := out[k]
		cc.Groups = list[:min(len(list), classChainsKept)]
		out[k] = cc
	}
	return out
}

// longChainHeap is a heap of linked lists, one node after another, each
// node a class object of its own now and then, and a few big arrays: a
// new class chain per depth, thousands of levels, wide levels, and more
// chains per class than a ClassChains keeps.
func longChainHeap(t *testing.T, seed uint64) *model.Heap {
	rng := rand.New(rand.NewPCG(seed, 3))
	g := analysistest.RandomGraph{Succ: make([][]int, 3000+rng.IntN(3000))}
	n := len(g.Succ)
	for v := range n - 1 {
		if rng.IntN(200) > 0 {
			g.Succ[v] = append(g.Succ[v], v+1)
		}
		if rng.IntN(500) == 0 {
			for range 1000 {
				g.Succ[v] = append(g.Succ[v], rng.IntN(n))
			}
		}
	}
	g.Roots = []int{0, rng.IntN(n)}
	h, _, _ := g.Load(t)
	return h
}

// wideHeap is a heap of one array referencing thousands of arrays in a
// random order, each referencing another: two wide levels of one chain
// each, whose least instance lies anywhere in the level.
func wideHeap(t *testing.T, seed uint64) *model.Heap {
	rng := rand.New(rand.NewPCG(seed, 9))
	wide := 2000 + rng.IntN(2000)
	g := analysistest.RandomGraph{Succ: make([][]int, 2*wide+1), Roots: []int{0}}
	for _, v := range rng.Perm(wide) {
		g.Succ[0] = append(g.Succ[0], 1+v)
		g.Succ[1+v] = []int{1 + wide + rng.IntN(wide)}
	}
	h, _, _ := g.Load(t)
	return h
}

// withSmallSteps runs fn with every level sorted by its digits and worked
// out in parallel ranges, down to the smallest (none keyed by addSmall).
func withSmallSteps(fn func()) {
	defer func(least, par, level, small int) {
		parallel.RadixLeast, parallel.RadixParallel, levelParallel, smallLevel = least, par, level, small
	}(parallel.RadixLeast, parallel.RadixParallel, levelParallel, smallLevel)
	parallel.RadixLeast, parallel.RadixParallel, levelParallel, smallLevel = 2, 2, 2, 0
	fn()
}

// checkClassChains compares the class chains of h worked out as the
// search finds the levels and from the tree with those of the
// definition.
func checkClassChains(t *testing.T, what string, h *model.Heap) {
	t.Helper()
	tree, chains := StrongPathsWithChains(h)
	want := naiveClassChains(h, tree.parent.slice)
	if !reflect.DeepEqual(chains.classes, want) {
		t.Errorf("%s: the class chains found with the levels differ from the definition's:\n got %v\nwant %v", what, chains.classes, want)
	}
	if got := SummarizeClassChains(h, tree); !reflect.DeepEqual(got.classes, want) {
		t.Errorf("%s: the class chains of the tree differ from the definition's:\n got %v\nwant %v", what, got.classes, want)
	}
}

// TestClassChainsMatchDefinition: the class chains kept for the index,
// worked out level by level, are those of the definition, on random
// heaps (chains, class objects held by their instances, big arrays), on
// linked lists thousands deep with more chains per class than are kept,
// on wide levels of few chains, and on the JVM's dumps; with the small
// levels keyed on their own (addSmall), with one goroutine and four, with levels
// searched (parents in windows) and sorted in parallel down to the
// smallest, with keys too
// wide to sort once, and with every level sorted rather than counted.
func TestClassChainsMatchDefinition(t *testing.T) {
	heaps := map[string]*model.Heap{}
	for seed := range uint64(30) {
		heaps[fmt.Sprintf("random %d", seed)] = analysistest.RandomHeap(t, seed)
	}
	for seed := range uint64(3) {
		heaps[fmt.Sprintf("lists %d", seed)] = longChainHeap(t, seed)
		heaps[fmt.Sprintf("wide %d", seed)] = wideHeap(t, seed)
	}
	if !testing.Short() {
		for name, h := range fixtureHeaps(t) {
			heaps[name] = h
		}
	}
	defer func(bits uint, per uint64) { chainKeyBits, countedPairsPer = bits, per }(chainKeyBits, countedPairsPer)
	counted := countedPairsPer
	for name, h := range heaps {
		for _, keyBits := range []uint{64, 8} {
			for _, per := range []uint64{counted, 1 << 62} {
				chainKeyBits, countedPairsPer = keyBits, per
				what := fmt.Sprintf("%s, %d-bit keys, counted from %d objects per pair", name, keyBits, per)
				checkClassChains(t, what, h)
				withSmallSteps(func() {
					for _, procs := range []int{1, 4} {
						withParallelism(procs, func() {
							checkClassChains(t, fmt.Sprintf("%s, %d procs, small steps", what, procs), h)
						})
					}
					// Parents beyond one window: levels searched in
					// parallel rather than in turn (searchPaths).
					withParallelism(4, func() {
						defer withScatterWindow(8)()
						checkClassChains(t, fmt.Sprintf("%s, 4 procs, small steps, windows of 8", what), h)
					})
				})
			}
		}
	}
}

// TestClassChainsOutOfCore: under a memory budget of one byte every
// table of the class chains is a mapped scratch file; they are still
// the definition's.
func TestClassChainsOutOfCore(t *testing.T) {
	heaps := []*model.Heap{analysistest.RandomHeap(t, 1), analysistest.RandomHeap(t, 2), longChainHeap(t, 4)}
	for k, h := range heaps {
		restore := bigmem.SetBudget(1, t.TempDir())
		mappedBefore := bigmem.MappedBytes()
		withSmallSteps(func() {
			analysistest.WithParallelism(2, func() { checkClassChains(t, fmt.Sprintf("heap %d out of core", k), h) })
		})
		// What is left mapped is the tree the search returned.
		mapped := bigmem.MappedBytes() - mappedBefore
		restore()
		if mapped <= 0 {
			t.Fatalf("heap %d: nothing was mapped under a one-byte budget", k)
		}
	}
}
