package graph

import (
	"sort"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
)

// classPaths is ShortestPaths for a class target: one shortest path per
// instance of the matching classes in the selected heaps, merged by class
// chain, up to paths chains, those holding most instances first (among
// equals, the chain met first in object order).
//
// The objects are keyed in parallel, in consecutive ranges, several per
// goroutine so that ranges dense in targets do not hold the others up;
// each goroutine numbers chains with keys of its own. The ranges' groups
// are then merged in range order, which meets the chains in object order
// as one pass would.
func classPaths(h *model.Heap, o RetainerOptions, parent parents, paths int) RetainerPaths {
	match := MatchingClasses(h, o.Class)
	if o.Chains.answers(o, parent, paths) {
		p, _ := o.Chains.classPaths(match, paths, func(obj model.ObjectIndex) ([]model.ObjectIndex, error) { return chainTo(parent, obj), nil })
		return p
	}
	classObjects := newClassObjects(h)
	n := h.NumObjects()
	parts := min(parallel.Workers()*classPathParts, max(n/parallel.ObjectChunk, 1))
	found := make([]*chainGroups, parts)
	keys := make([]*chainKeys, parallel.Workers())
	parallel.ForChunks(parts, 1, func(w, k, _ int) {
		if keys[w] == nil {
			keys[w] = newChainKeys(h, parent, classObjects)
		}
		g := &chainGroups{keys: keys[w], groups: map[uint32]*chainGroup{}}
		for i := k * n / parts; i < (k+1)*n/parts; i++ {
			obj := model.ObjectIndex(i)
			c := h.ClassOf(obj)
			if c == model.NoClass || !match[c] || classObjects.has(obj) || !o.Heaps.Has(obj) {
				continue
			}
			g.targets++
			if parent.at(obj) == noParent {
				g.unreached++
				continue
			}
			g.add(g.keys.of(obj), obj, 1)
		}
		found[k] = g
	})
	all := &chainGroups{keys: newChainIDs(h, parent, classObjects), groups: map[uint32]*chainGroup{}}
	global := map[*chainKeys][]uint32{}
	for _, k := range keys {
		if k != nil {
			g := make([]uint32, len(k.links)+1)
			for id, l := range k.links {
				g[id+1] = all.keys.id(chainLink{parent: g[l.parent], class: l.class})
			}
			global[k] = g
		}
	}
	var out RetainerPaths
	for _, g := range found {
		out.Targets += g.targets
		out.Unreached += g.unreached
		for _, k := range g.order {
			gr := g.groups[k]
			all.add(global[g.keys][k], gr.example, gr.count)
		}
	}
	order := all.order
	sort.SliceStable(order, func(a, b int) bool { return all.groups[order[a]].count > all.groups[order[b]].count })
	for _, k := range order[:min(paths, len(order))] {
		out.Chains = append(out.Chains, chainTo(parent, all.groups[k].example))
		out.Objects = append(out.Objects, all.groups[k].count)
	}
	return out
}

// classPathParts is how many ranges of objects per goroutine classPaths
// keys.
const classPathParts = 8

// chainGroups are the targets of classPaths grouped by class chain: per
// chain key, the first target met and how many there are, the keys in
// the order they were met.
type chainGroups struct {
	keys               *chainKeys
	groups             map[uint32]*chainGroup
	order              []uint32
	targets, unreached int64
}

// chainGroup is one class chain's targets: the first one, and their count.
type chainGroup struct {
	example model.ObjectIndex
	count   int64
}

// add counts count targets of chain key k, the first of them example.
func (g *chainGroups) add(k uint32, example model.ObjectIndex, count int64) {
	gr, ok := g.groups[k]
	if !ok {
		gr = &chainGroup{example: example}
		g.groups[k] = gr
		g.order = append(g.order, k)
	}
	gr.count += count
}

// classObjects tells the class objects of a heap apart from its other
// objects without a lookup by id for each.
type classObjects struct {
	h *model.Heap
	// classOf maps each class object to the class it stands for, as
	// model.Heap.ClassObjectOf finds it.
	classOf map[model.ObjectIndex]model.ClassIndex
	// mayBe marks the classes of the class objects (java.lang.Class).
	mayBe []bool
}

func newClassObjects(h *model.Heap) *classObjects {
	co := &classObjects{h: h, classOf: map[model.ObjectIndex]model.ClassIndex{}, mayBe: make([]bool, len(h.Classes))}
	for c := range h.Classes {
		obj := h.Classes[c].Object
		if obj == model.NoObject || int(obj) >= h.NumObjects() {
			continue
		}
		if k, ok := h.ClassObjectOf(obj); ok && h.Classes[k].Object == obj {
			co.classOf[obj] = k
			if oc := h.ClassOf(obj); oc != model.NoClass {
				co.mayBe[oc] = true
			}
		}
	}
	return co
}

// of returns the class that object x stands for, when x is a class
// object (see IsClassObject).
func (co *classObjects) of(x model.ObjectIndex) (model.ClassIndex, bool) {
	if c := co.h.ClassOf(x); c == model.NoClass || !co.mayBe[c] {
		return 0, false
	}
	c, ok := co.classOf[x]
	return c, ok
}

// has reports whether object x is a class object.
func (co *classObjects) has(x model.ObjectIndex) bool {
	_, ok := co.of(x)
	return ok
}

// chainKeys numbers the class chains of the shortest-path tree: two
// objects get the same key when the paths from their roots pass through
// objects of the same classes (class objects counting by the class they
// stand for). Keys are remembered per object in a cache of fixed size
// (chainMemoBits), each object in one slot, so that keying every
// instance of a class mostly stops at a remembered ancestor without
// holding a word per object; an object no longer remembered is keyed
// again from its ancestors, to the same key.
type chainKeys struct {
	h       *model.Heap
	parent  parents
	classes *classObjects
	memo    []chainMemo
	ids     map[chainLink]uint32
	// links are the keys' links, key k's at k-1: a link's parent key is
	// always less than its own.
	links []chainLink
	// recent remembers the keys of links met lately, one per slot by a
	// hash of the link (key 0: none), in front of ids: most objects'
	// links are among a few, and a big map is slow to look up.
	recent []chainRecent
	stack  []model.ObjectIndex
}

// chainRecentBits sizes chainKeys's cache of links: 2^14 slots, 192 KiB.
const chainRecentBits = 14

// chainRecent is a slot of chainKeys's cache of links.
type chainRecent struct {
	link chainLink
	key  uint32
}

// chainMemoBits sizes chainKeys's cache: 2^20 slots, 8 MiB.
const chainMemoBits = 20

// chainMemo is a slot of chainKeys's cache: the key of object obj; key 0
// (no chain has it) marks an empty slot.
type chainMemo struct {
	obj model.ObjectIndex
	key uint32
}

// slot is where object x's key is remembered.
func (k *chainKeys) slot(x model.ObjectIndex) *chainMemo {
	return &k.memo[(uint32(x)*0x9E3779B1)>>(32-chainMemoBits)]
}

// chainLink is a chain's last class (class objects flagged by the high
// bit) after the chain of its parent.
type chainLink struct {
	parent uint32
	class  uint32
}

func newChainKeys(h *model.Heap, parent parents, classes *classObjects) *chainKeys {
	k := newChainIDs(h, parent, classes)
	k.memo = make([]chainMemo, 1<<chainMemoBits)
	return k
}

// newChainIDs is a chainKeys without its cache of objects' keys.
func newChainIDs(h *model.Heap, parent parents, classes *classObjects) *chainKeys {
	return &chainKeys{h: h, parent: parent, classes: classes, ids: map[chainLink]uint32{}, recent: make([]chainRecent, 1<<chainRecentBits)}
}

// id returns the key of link, numbering it when it is new.
func (k *chainKeys) id(link chainLink) uint32 {
	slot := &k.recent[(uint64(link.parent)<<32|uint64(link.class))*0x9E3779B97F4A7C15>>(64-chainRecentBits)]
	if slot.key != 0 && slot.link == link {
		return slot.key
	}
	id, ok := k.ids[link]
	if !ok {
		k.links = append(k.links, link)
		id = uint32(len(k.links))
		k.ids[link] = id
	}
	*slot = chainRecent{link: link, key: id}
	return id
}

// of returns the key of the chain from a root to obj, which a root
// reaches.
func (k *chainKeys) of(obj model.ObjectIndex) uint32 {
	k.stack = k.stack[:0]
	x := obj
	key := uint32(0)
	for {
		if key = k.known(x); key != 0 {
			break
		}
		k.stack = append(k.stack, x)
		if k.parent.at(x) == rootParent {
			break
		}
		x = model.ObjectIndex(k.parent.at(x))
	}
	for i := len(k.stack) - 1; i >= 0; i-- {
		y := k.stack[i]
		key = k.id(k.link(key, y))
		k.remember(y, key)
	}
	return key
}

// known is the key remembered for object x, 0 when none is.
func (k *chainKeys) known(x model.ObjectIndex) uint32 {
	if m := k.slot(x); m.obj == x {
		return m.key
	}
	return 0
}

// remember keeps key as object x's.
func (k *chainKeys) remember(x model.ObjectIndex, key uint32) {
	*k.slot(x) = chainMemo{obj: x, key: key}
}

// link is the link of object y after the chain of key parent.
func (k *chainKeys) link(parent uint32, y model.ObjectIndex) chainLink {
	if c, ok := k.classes.of(y); ok {
		return chainLink{parent: parent, class: uint32(c) | 1<<31}
	}
	return chainLink{parent: parent, class: uint32(k.h.ClassOf(y))}
}
