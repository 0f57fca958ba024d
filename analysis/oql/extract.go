package oql

import "github.com/hprofctl/hprofctl/model"

// elements lists what object v holds, for v[a:b] and v[i]: an array's
// elements; an array-backed list's elements up to its size (ArrayList,
// Vector, CopyOnWriteArrayList); a hash map's entries as records of key
// and value (HashMap, LinkedHashMap, Hashtable, Properties,
// WeakHashMap, ConcurrentHashMap of JDK 8 and later), and a set backed
// by such a map (HashSet …) as that map's entries; null for other
// objects.
func (e *evaluator) elements(v Value) (Value, error) {
	h := e.h
	if c := h.ClassOf(v.Obj); c != model.NoClass && h.Classes[c].IsArray() && !isClassObject(h, v.Obj) {
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
	if data, ok := get("elementData"); ok {
		size, ok := get("size")
		if !ok {
			size, _ = get("elementCount")
		}
		if data.Kind == KindNull || size.Kind != KindInt {
			return Value{Kind: KindList, List: []Value{}}, nil
		}
		return e.arrayElements(data, size.Int)
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
	names := []string{"key", "value"}
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
			out.List = append(out.List, record(names, entry))
			node = next
		}
	}
	return out, nil
}
