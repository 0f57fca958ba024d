package oql

import "github.com/hprofctl/hprofctl/model"

// elements lists what object v holds, for v[a:b] and v[i]: an array's
// elements; an array-backed list's or queue's elements up to its size
// (ArrayList, Vector, CopyOnWriteArrayList, PriorityQueue, ArrayDeque
// from head to tail); a LinkedList's items; a map's entries as records of
// key and value (HashMap, LinkedHashMap, Hashtable, Properties,
// WeakHashMap, ConcurrentHashMap of JDK 8 and later, IdentityHashMap,
// TreeMap in key order), and a set backed by such a map (HashSet,
// TreeSet …) as that map's entries; null for other objects.
func (e *evaluator) elements(v Value) (Value, error) {
	if e.isArray(v) {
		return e.arrayElements(v, -1)
	}
	vals, err := e.values(v.Obj)
	if err != nil || vals == nil {
		return Null(), err
	}
	get := func(name string) (Value, bool) {
		f, ok := vals.Field(name)
		if !ok {
			return Null(), false
		}
		return e.fieldValue(f), true
	}
	for _, backing := range []string{"elementData", "queue"} {
		if data, ok := get(backing); ok && (data.Kind == KindNull || e.isArray(data)) {
			size, ok := get("size")
			if !ok {
				size, _ = get("elementCount")
			}
			if data.Kind == KindNull || size.Kind != KindInt {
				return Value{Kind: KindList, List: []Value{}}, nil
			}
			return e.arrayElements(data, size.Int)
		}
	}
	if data, ok := get("elements"); ok && e.isArray(data) {
		head, _ := get("head")
		tail, _ := get("tail")
		return e.dequeElements(data, head, tail)
	}
	if first, ok := get("first"); ok {
		return e.chain(first, Null(), "item")
	}
	if header, ok := get("header"); ok && header.Kind == KindObject {
		first, err := e.field(header, "next")
		if err != nil {
			return Null(), err
		}
		return e.chain(first, header, "element")
	}
	if segments, ok := get("segments"); ok && segments.Kind == KindObject {
		return e.segmentEntries(segments)
	}
	if root, ok := get("root"); ok {
		return e.treeEntries(root)
	}
	if arr, ok := get("array"); ok && arr.Kind == KindObject {
		return e.arrayElements(arr, -1)
	}
	for _, backing := range []string{"map", "m", "al"} {
		if inner, ok := get(backing); ok && inner.Kind == KindObject {
			return e.elements(inner)
		}
	}
	if table, ok := get("table"); ok {
		if table.Kind == KindNull {
			return Value{Kind: KindList, List: []Value{}}, nil
		}
		if c := e.h.ClassOf(table.Obj); c != model.NoClass && e.h.Classes[c].Name == "java.lang.Object[]" {
			return e.pairEntries(table)
		}
		return e.hashEntries(table)
	}
	return Null(), nil
}

// arrayElements lists the first n elements of array v (all when n < 0).
func (e *evaluator) arrayElements(v Value, n int64) (Value, error) {
	vals, err := e.values(v.Obj)
	if err != nil || vals == nil || vals.Length < 0 {
		return Null(), err
	}
	if n < 0 || n > vals.Length {
		n = vals.Length
	}
	out := Value{Kind: KindList, List: make([]Value, n)}
	for k := range n {
		if out.List[k], err = e.index(v, Int(k)); err != nil {
			return Null(), err
		}
	}
	return out, nil
}

// hashEntries lists the entries of a hash table's bucket array: each
// bucket's chain through next, in table order, as records of key and
// value (a WeakHashMap's key is its entry's referent).
func (e *evaluator) hashEntries(table Value) (Value, error) {
	buckets, err := e.arrayElements(table, -1)
	if err != nil || buckets.Kind != KindList {
		return buckets, err
	}
	out := Value{Kind: KindList, List: []Value{}}
	// seen stops a chain that loops, as a corrupt dump's may.
	seen := map[model.ObjectIndex]bool{}
	for _, node := range buckets.List {
		for node.Kind == KindObject && !seen[node.Obj] {
			seen[node.Obj] = true
			vals, err := e.values(node.Obj)
			if err != nil || vals == nil {
				return Null(), err
			}
			entry := []Value{Null(), Null()}
			next := Null()
			for _, f := range vals.Fields {
				switch f.Name {
				case "key", "referent":
					entry[0] = e.fieldValue(f)
				case "value", "val":
					entry[1] = e.fieldValue(f)
				case "next":
					next = e.fieldValue(f)
				}
			}
			out.List = append(out.List, record(entryNames, entry))
			node = next
		}
	}
	return out, nil
}

// isArray reports whether v is an array object.
func (e *evaluator) isArray(v Value) bool {
	if v.Kind != KindObject || isClassObject(e.h, v.Obj) {
		return false
	}
	c := e.h.ClassOf(v.Obj)
	return c != model.NoClass && e.h.Classes[c].IsArray()
}

// entryNames are the columns of a map entry.
var entryNames = []string{"key", "value"}

// dequeElements lists an ArrayDeque's elements, from head to tail
// around the end of its array.
func (e *evaluator) dequeElements(data, head, tail Value) (Value, error) {
	all, err := e.arrayElements(data, -1)
	if err != nil || all.Kind != KindList || head.Kind != KindInt || tail.Kind != KindInt {
		return all, err
	}
	n := int64(len(all.List))
	out := Value{Kind: KindList, List: []Value{}}
	for k := head.Int; n > 0 && k%n != tail.Int%n && int64(len(out.List)) < n; k++ {
		out.List = append(out.List, all.List[k%n])
	}
	return out, nil
}

// chain lists the item field of each node of a chain through next (a
// LinkedList's nodes; JDK 6's loop back to their header, stop), ending
// where it loops.
func (e *evaluator) chain(node, stop Value, item string) (Value, error) {
	out := Value{Kind: KindList, List: []Value{}}
	seen := map[model.ObjectIndex]bool{}
	if stop.Kind == KindObject {
		seen[stop.Obj] = true
	}
	for node.Kind == KindObject && !seen[node.Obj] {
		seen[node.Obj] = true
		vals, err := e.values(node.Obj)
		if err != nil || vals == nil {
			return Null(), err
		}
		x, n := Null(), Null()
		for _, f := range vals.Fields {
			switch f.Name {
			case item:
				x = e.fieldValue(f)
			case "next":
				n = e.fieldValue(f)
			}
		}
		out.List = append(out.List, x)
		node = n
	}
	return out, nil
}

// segmentEntries lists the entries of a JDK 5 to 7 ConcurrentHashMap:
// each segment's hash table in turn.
func (e *evaluator) segmentEntries(segments Value) (Value, error) {
	segs, err := e.arrayElements(segments, -1)
	if err != nil || segs.Kind != KindList {
		return segs, err
	}
	out := Value{Kind: KindList, List: []Value{}}
	for _, seg := range segs.List {
		if seg.Kind != KindObject {
			continue
		}
		table, err := e.field(seg, "table")
		if err != nil {
			return Null(), err
		}
		if table.Kind != KindObject {
			continue
		}
		entries, err := e.hashEntries(table)
		if err != nil || entries.Kind != KindList {
			return entries, err
		}
		out.List = append(out.List, entries.List...)
	}
	return out, nil
}

// treeEntries lists a TreeMap's entries in key order: its tree walked
// left, node, right.
func (e *evaluator) treeEntries(root Value) (Value, error) {
	out := Value{Kind: KindList, List: []Value{}}
	seen := map[model.ObjectIndex]bool{}
	var stack []Value
	node := root
	for node.Kind == KindObject || len(stack) > 0 {
		for node.Kind == KindObject && !seen[node.Obj] {
			seen[node.Obj] = true
			stack = append(stack, node)
			left, err := e.field(node, "left")
			if err != nil {
				return Null(), err
			}
			node = left
		}
		if len(stack) == 0 {
			break
		}
		node, stack = stack[len(stack)-1], stack[:len(stack)-1]
		entry := []Value{Null(), Null()}
		for k, name := range entryNames {
			v, err := e.field(node, name)
			if err != nil {
				return Null(), err
			}
			entry[k] = v
		}
		out.List = append(out.List, record(entryNames, entry))
		right, err := e.field(node, "right")
		if err != nil {
			return Null(), err
		}
		node = right
	}
	return out, nil
}

// pairEntries lists an IdentityHashMap's entries: its table holds each
// key followed by its value.
func (e *evaluator) pairEntries(table Value) (Value, error) {
	all, err := e.arrayElements(table, -1)
	if err != nil || all.Kind != KindList {
		return all, err
	}
	out := Value{Kind: KindList, List: []Value{}}
	for k := 0; k+1 < len(all.List); k += 2 {
		if all.List[k].Kind != KindNull {
			out.List = append(out.List, record(entryNames, []Value{all.List[k], all.List[k+1]}))
		}
	}
	return out, nil
}
