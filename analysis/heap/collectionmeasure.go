package heap

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hprofctl/hprofctl/model"
)

// measure sets the size, capacity and empty slots of the collection
// whose fields are v, by its rule; a collection whose elements another
// holds (rule.via, rule.parts) notes that one instead, and one of linked
// nodes without a size field is left to countNodes.
func (st *collectionState) measure(h *model.Heap, v *model.ObjectValues) {
	st.backing, st.parts, st.cells, st.box = model.NoObject, model.NoObject, model.NoObject, model.NoObject
	rule := st.rule()
	if rule.via != "" || rule.parts != "" {
		if f, ok := v.Field(cmp.Or(rule.via, rule.parts)); ok && f.Ref != model.NoObject && (rule.via != "" || isArray(h, f.Ref)) {
			if rule.via != "" {
				st.backing = f.Ref
			} else {
				st.parts = f.Ref
			}
			return
		}
		if rule.fallback == "" {
			st.resolved = true
			return
		}
		k, _ := slices.BinarySearch(jdkClasses, rule.fallback)
		st.class = int16(k)
		rule = st.rule()
	}
	st.resolved = true
	intField := func(name string) int64 {
		f, _ := v.Field(name)
		return int64(int32(f.Bits))
	}
	arrayField := func(name string) (model.ObjectIndex, int64) {
		if f, ok := v.Field(name); ok && f.Ref != model.NoObject && isArray(h, f.Ref) {
			return f.Ref, int64(h.ArrayLength(f.Ref))
		}
		return model.NoObject, 0
	}
	table, length := model.ObjectIndex(model.NoObject), int64(0)
	if rule.array != "" {
		table, length = arrayField(rule.array)
	}
	jdkClass := jdkClasses[st.class]
	switch {
	case rule.fixed:
		st.size = rule.fixedSize
	case rule.lengthSize:
		st.size = length
	case rule.bits != "":
		f, _ := v.Field(rule.bits)
		st.size = int64(bits.OnesCount64(f.Bits))
	case len(rule.nonNull) > 0:
		for _, name := range rule.nonNull {
			if f, ok := v.Field(name); ok && f.Bits != 0 {
				st.size++
			}
		}
	case rule.sizeBox != "":
		f, _ := v.Field(rule.sizeBox)
		st.box = f.Ref
	case jdkClass == "java.util.ArrayDeque":
		head, tail := intField("head"), intField("tail")
		if length > 0 {
			st.size = ((tail-head)%length + length) % length
		}
	case jdkClass == concurrentHashMap8:
		f, _ := v.Field("baseCount")
		st.size = int64(f.Bits)
		if c, ok := v.Field("counterCells"); ok {
			st.cells = c.Ref
		}
	default:
		st.size = intField(rule.size)
	}
	switch {
	case rule.universe != "":
		_, st.capacity = arrayField(rule.universe)
	case rule.array == "":
		st.capacity = st.size
	case rule.pairs:
		st.capacity = length / 2
		st.empty = max(length-2*st.size, 0)
	case rule.hashed:
		st.capacity = length
		if table != model.NoObject {
			st.empty = length - int64(len(h.Refs(table)))
		}
	default:
		st.capacity = length
		st.empty = max(length-st.size, 0)
	}
}

// isArray reports whether object i is an array.
func isArray(h *model.Heap, i model.ObjectIndex) bool {
	c := h.ClassOf(i)
	return c != model.NoClass && h.Classes[c].IsArray()
}

// addCounterCells adds to each collection's size the int "value" fields
// the size is kept in elsewhere: a ConcurrentHashMap's counter cells (the
// part of the count threads added under contention), a
// LinkedBlockingQueue's AtomicInteger.
func addCounterCells(h *model.Heap, states []collectionState) error {
	var owner []int
	var cells []model.ObjectIndex
	for k := range states {
		if c := states[k].cells; c != model.NoObject {
			for _, cell := range h.Refs(c) {
				owner = append(owner, k)
				cells = append(cells, cell)
			}
		}
		if b := states[k].box; b != model.NoObject {
			owner = append(owner, k)
			cells = append(cells, b)
		}
	}
	if len(cells) == 0 {
		return nil
	}
	values := make([]int64, len(cells))
	err := model.EachValues(h, cells, func(k int, v *model.ObjectValues) error {
		if f, ok := v.Field("value"); ok && v.Length < 0 {
			switch f.Type {
			case model.TypeInt:
				values[k] = int64(int32(f.Bits))
			case model.TypeLong:
				values[k] = int64(f.Bits)
			}
		}
		return nil
	})
	for k, v := range values {
		st := &states[owner[k]]
		st.size += v
		if st.rule().array == "" {
			st.capacity = st.size
		}
	}
	return err
}

// countNodes sizes the collections of linked nodes without a size field:
// the nodes reachable from the collection through objects of its node
// classes, each node referencing an element (an object of another class
// than the nodes' and than java.lang.Object, the class of a skip list's
// header marker) counting one. A node referencing two (a skip list's key
// and value) counts once.
func countNodes(h *model.Heap, colls []model.ObjectIndex, states []collectionState) {
	nodeClass := map[model.ClassIndex]string{}
	for c := range h.Classes {
		for jdk, names := range nodeClasses {
			if slices.Contains(names, h.Classes[c].Name) {
				nodeClass[model.ClassIndex(c)] = jdk
			}
		}
	}
	if len(nodeClass) == 0 {
		return
	}
	for k := range states {
		st := &states[k]
		if !st.read || !st.rule().nodes {
			continue
		}
		jdk := jdkClasses[st.class]
		seen := map[model.ObjectIndex]bool{}
		queue := []model.ObjectIndex{colls[k]}
		for len(queue) > 0 {
			o := queue[0]
			queue = queue[1:]
			holds := false
			for _, r := range h.Refs(o) {
				c := h.ClassOf(r)
				switch {
				case c == model.NoClass:
				case nodeClass[c] == jdk:
					if !seen[r] {
						seen[r] = true
						queue = append(queue, r)
					}
				case h.Classes[c].Name != "java.lang.Object":
					holds = true
				}
			}
			if holds && o != colls[k] {
				st.size++
			}
		}
		st.capacity = st.size
	}
}

// resolveBacking gives each collection whose elements another holds the
// size and capacity of that one (through wrappers of wrappers), and each
// one of parts their sums; it returns the collections owned so (a
// HashSet's HashMap, a JDK 7 ConcurrentHashMap's segments): they are then
// not counted on their own.
func resolveBacking(h *model.Heap, colls []model.ObjectIndex, states []collectionState) map[model.ObjectIndex]bool {
	owned := map[model.ObjectIndex]bool{}
	find := func(obj model.ObjectIndex) int {
		if n, ok := slices.BinarySearch(colls, obj); ok && states[n].read {
			return n
		}
		return -1
	}
	var resolve func(k, depth int)
	resolve = func(k, depth int) {
		st := &states[k]
		if st.resolved || depth > 16 {
			return
		}
		st.resolved = true
		rule := st.rule()
		if st.parts != model.NoObject {
			for _, part := range h.Refs(st.parts) {
				if n := find(part); n >= 0 {
					resolve(n, depth+1)
					st.size += states[n].size
					st.capacity += states[n].capacity
					st.empty += states[n].empty
					owned[part] = true
				}
			}
			return
		}
		n := find(st.backing)
		if n < 0 {
			return
		}
		resolve(n, depth+1)
		b := states[n]
		st.size, st.capacity = b.size, b.capacity
		if rule.owns {
			st.empty = b.empty
			owned[st.backing] = true
		}
	}
	for k := range states {
		if states[k].read {
			resolve(k, 0)
		}
	}
	return owned
}
