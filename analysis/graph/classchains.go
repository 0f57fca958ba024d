package graph

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionClassChains is the index section a ClassChains is kept in.
const SectionClassChains = "paths.class-chains"

// classChainsKept is how many class chains a ClassChains keeps per class:
// a class target's answer lists the few chains holding most instances
// (retainers --paths, 3 by default), and the most held of several
// classes are among the most held of each.
const classChainsKept = 64

// ClassChains is what `retainers --class` answers from, for every class:
// its instances (class objects left out), those no root reaches, and the
// class chains of the strong shortest path tree that hold most of them
// (see classPaths). It is computed once, for the index, so that the
// question need not key millions of instances by their chains again.
type ClassChains struct {
	tree    *PathTree
	classes map[model.ClassIndex]classChainsOf
}

// classChainsOf is one class's part of a ClassChains.
type classChainsOf struct {
	Class     int32 `json:"class"`
	Targets   int64 `json:"targets"`
	Unreached int64 `json:"unreached"`
	// Groups are the chains holding most instances, each as its first
	// instance in object order and its count of instances: most first,
	// equal counts by their first instance.
	Groups [][2]int64 `json:"groups"`
}

// SummarizeClassChains keys every object of h by its class chain in the
// shortest path tree t, and keeps the chains holding most instances of
// each class. It walks the tree level by level from its roots, as
// StrongPathsWithChains does while it searches, with tables of the
// build (model/bigmem: within its memory budget) of a few words per
// object.
func SummarizeClassChains(h *model.Heap, t *PathTree) *ClassChains {
	parent := t.parent.slice
	if t.parent.kept != nil {
		parent = bigmem.Make[uint32](t.parent.len())
		defer bigmem.Free(parent)
		for i := range parent {
			parent[i] = t.parent.at(model.ObjectIndex(i))
		}
	}
	c := newChainLevels(h, parent)
	treeLevels(parent, func(prev, level []model.ObjectIndex) { c.add(0, prev, level) })
	return c.summary(t)
}

// treeLevels calls fn with each level of the tree parent, from its
// roots down, and the level before it (nil for the roots): the roots in
// object order, then the children of each object of a level in object
// order, one object's after another's in the level's order, as a
// breadth-first search of the tree finds them.
func treeLevels(parent []uint32, fn func(prev, level []model.ObjectIndex)) {
	n := len(parent)
	// The children of each object, in object order, from first[x] on.
	first := bigmem.Make[uint32](n + 1)
	defer bigmem.Free(first)
	for _, p := range parent {
		if p < uint32(n) {
			first[p+1]++
		}
	}
	for x := range n {
		first[x+1] += first[x]
	}
	children := bigmem.Make[model.ObjectIndex](int(first[n]))
	defer bigmem.Free(children)
	fill := bigmem.Make[uint32](n)
	defer bigmem.Free(fill)
	copy(fill, first[:n])
	var level, next []model.ObjectIndex
	for x, p := range parent {
		switch {
		case p == rootParent:
			level = bigmem.AppendOne(level, model.ObjectIndex(x))
		case p < uint32(n):
			children[fill[p]] = model.ObjectIndex(x)
			fill[p]++
		}
	}
	if len(level) > 0 {
		fn(nil, level)
	}
	for len(level) > 0 {
		next = next[:0]
		for _, x := range level {
			next = bigmem.Append(next, children[first[x]:first[x+1]]...)
		}
		if len(next) > 0 {
			fn(level, next)
		}
		level, next = next, level
	}
	bigmem.Free(level)
	bigmem.Free(next)
}

// WriteClassChains writes s into the index w.
func WriteClassChains(w *store.Writer, s *ClassChains) error {
	list := make([]classChainsOf, 0, len(s.classes))
	for _, cc := range s.classes {
		list = append(list, cc)
	}
	slices.SortFunc(list, func(a, b classChainsOf) int { return cmp.Compare(a.Class, b.Class) })
	return w.WriteJSON(SectionClassChains, list)
}

// ReadClassChains reads the ClassChains that WriteClassChains wrote into
// ix, for heap h and the shortest path tree t read from the same index;
// nil when the index keeps none. What it says is checked against h: each
// chain's first instance is an object of its class that a root reaches,
// and the counts add up to no more than the instances.
func ReadClassChains(ix *store.Index, h *model.Heap, t *PathTree) (*ClassChains, error) {
	if _, ok := ix.Section(SectionClassChains); !ok {
		return nil, nil
	}
	var list []classChainsOf
	if err := ix.JSON(SectionClassChains, &list); err != nil {
		return nil, err
	}
	s := &ClassChains{tree: t, classes: make(map[model.ClassIndex]classChainsOf, len(list))}
	n := int64(h.NumObjects())
	for _, cc := range list {
		c := model.ClassIndex(cc.Class)
		held := int64(0)
		for _, g := range cc.Groups {
			if g[0] < 0 || g[0] >= n || g[1] < 1 || h.ClassOf(model.ObjectIndex(g[0])) != c || t.parent.at(model.ObjectIndex(g[0])) == noParent {
				return nil, fmt.Errorf("%w: class chain of object %d (%d instances) cannot be of class %d", store.ErrCorrupt, g[0], g[1], cc.Class)
			}
			held += g[1]
		}
		_, dup := s.classes[c]
		if cc.Class < 0 || int(cc.Class) >= len(h.Classes) || dup || cc.Unreached < 0 || cc.Targets > h.Classes[c].Instances ||
			held > cc.Targets-cc.Unreached || len(cc.Groups) > classChainsKept {
			return nil, fmt.Errorf("%w: the class chains of class %d do not fit its instances", store.ErrCorrupt, cc.Class)
		}
		s.classes[c] = cc
	}
	return s, nil
}

// EachClass calls fn with each class of s in index order: its instances
// (class objects left out), those no root reaches, and its chains that
// hold most instances, each as its first instance and its count of
// instances, most first (equal counts by their first instance).
func (s *ClassChains) EachClass(fn func(c model.ClassIndex, targets, unreached int64, groups [][2]int64)) {
	classes := make([]model.ClassIndex, 0, len(s.classes))
	for c := range s.classes {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		cc := s.classes[c]
		fn(c, cc.Targets, cc.Unreached, cc.Groups)
	}
}

// answers reports whether s can give classPaths's answer for o and
// paths: the same tree, every heap, and enough chains kept.
func (s *ClassChains) answers(o RetainerOptions, parent parents, paths int) bool {
	return s != nil && !o.IncludeWeak && o.Heaps.All() && paths <= classChainsKept && s.tree.parent.same(parent)
}

// classPaths is classPaths from s, for the classes match marks, with
// each chain made by chain.
func (s *ClassChains) classPaths(match []bool, paths int, chain func(model.ObjectIndex) ([]model.ObjectIndex, error)) (RetainerPaths, error) {
	var out RetainerPaths
	var groups [][2]int64
	for c, cc := range s.classes {
		if !match[c] {
			continue
		}
		out.Targets += cc.Targets
		out.Unreached += cc.Unreached
		groups = append(groups, cc.Groups...)
	}
	slices.SortFunc(groups, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(b[1], a[1]), cmp.Compare(a[0], b[0])) })
	for _, g := range groups[:min(paths, len(groups))] {
		c, err := chain(model.ObjectIndex(g[0]))
		if err != nil {
			return RetainerPaths{}, err
		}
		out.Chains = append(out.Chains, c)
		out.Objects = append(out.Objects, g[1])
	}
	return out, nil
}
