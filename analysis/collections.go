package analysis

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/hprofctl/hprofctl/model"
)

// CollectionOptions choose what Collections lists.
type CollectionOptions struct {
	// Objects lists each collection and each wasteful array instead of
	// sums per class.
	Objects bool
	// Top keeps the Top rows of each list that waste most; 0 keeps all.
	Top  int
	Size model.SizeMode
}

// CollectionClass sums the collections of one class.
type CollectionClass struct {
	Class     string `json:"class"`
	Instances int64  `json:"instances"`
	// Empty counts the instances of size 0.
	Empty    int64 `json:"empty"`
	Size     int64 `json:"size"`
	Capacity int64 `json:"capacity"`
	// FillRatio is Size / Capacity (1 when Capacity is 0).
	FillRatio   float64 `json:"fill_ratio"`
	WastedBytes int64   `json:"wasted_bytes"`
}

// CollectionObject is one collection.
type CollectionObject struct {
	ObjectID    string  `json:"object_id"`
	Class       string  `json:"class"`
	Size        int64   `json:"size"`
	Capacity    int64   `json:"capacity"`
	FillRatio   float64 `json:"fill_ratio"`
	WastedBytes int64   `json:"wasted_bytes"`
}

// ArrayClassWaste sums the wasteful arrays of one array class: those of
// length 0, object arrays of nulls only, and primitive arrays of two or
// more elements that all hold one value; the bytes are their shallow
// sizes.
type ArrayClassWaste struct {
	Class           string `json:"class"`
	ZeroLength      int64  `json:"zero_length"`
	ZeroLengthBytes int64  `json:"zero_length_bytes"`
	AllNull         int64  `json:"all_null"`
	AllNullBytes    int64  `json:"all_null_bytes"`
	Constant        int64  `json:"constant"`
	ConstantBytes   int64  `json:"constant_bytes"`
}

// The kinds of wasteful arrays.
const (
	ArrayZeroLength = "zero-length"
	ArrayAllNull    = "all-null"
	ArrayConstant   = "constant"
)

// ArrayObject is one wasteful array.
type ArrayObject struct {
	ObjectID string `json:"object_id"`
	Class    string `json:"class"`
	Length   int64  `json:"length"`
	// Kind is ArrayZeroLength, ArrayAllNull or ArrayConstant.
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes"`
	// Value is a constant array's value (as show prints it), nil for the
	// other kinds.
	Value any `json:"value"`
}

// CollectionReport is the result of Collections: sums per class, or with
// CollectionOptions.Objects the objects themselves.
type CollectionReport struct {
	Classes      []CollectionClass
	Arrays       []ArrayClassWaste
	Objects      []CollectionObject
	ArrayObjects []ArrayObject
	// Collections and WastedBytes count and sum every collection found,
	// ArrayBytes every wasteful array, whatever rows are shown.
	Collections int64
	WastedBytes int64
	ArrayBytes  int64
}

// collectionRule says how the JDK class of a collection keeps its size
// and its slots.
type collectionRule struct {
	// size is the int field that holds the number of elements, "" where
	// it is derived (below).
	size string
	// array is the field of the backing array, "" for a collection of
	// linked nodes (its capacity is its size).
	array string
	// hashed marks a hash table: its empty slots are the null buckets,
	// as entries that collide share one. Otherwise the slots past the
	// size are empty.
	hashed bool
	// pairs marks a table of keys and values side by side
	// (IdentityHashMap): its capacity is half the array's length.
	pairs bool
	// via names the field of the map that backs a set: the set's size
	// and capacity are the map's, and the map is not counted apart.
	via string
}

// collectionRules are the JDK collections Collections knows, by the
// name of the class whose fields it reads; subclasses (LinkedHashMap,
// Stack, a program's own) follow the rule of the nearest one. Sizes
// derived from other fields: ArrayDeque (head and tail),
// ConcurrentHashMap (baseCount plus its counter cells),
// CopyOnWriteArrayList (its array is always exactly full).
var collectionRules = map[string]collectionRule{
	"java.util.HashMap":                                 {size: "size", array: "table", hashed: true},
	"java.util.Hashtable":                               {size: "count", array: "table", hashed: true},
	"java.util.WeakHashMap":                             {size: "size", array: "table", hashed: true},
	"java.util.concurrent.ConcurrentHashMap":            {array: "table", hashed: true},
	"java.util.IdentityHashMap":                         {size: "size", array: "table", pairs: true},
	"java.util.ArrayList":                               {size: "size", array: "elementData"},
	"java.util.Vector":                                  {size: "elementCount", array: "elementData"},
	"java.util.PriorityQueue":                           {size: "size", array: "queue"},
	"java.util.concurrent.PriorityBlockingQueue":        {size: "size", array: "queue"},
	"java.util.concurrent.ArrayBlockingQueue":           {size: "count", array: "items"},
	"java.util.concurrent.CopyOnWriteArrayList":         {array: "array"},
	"java.util.ArrayDeque":                              {array: "elements"},
	"java.util.TreeMap":                                 {size: "size"},
	"java.util.LinkedList":                              {size: "size"},
	"java.util.HashSet":                                 {via: "map"},
	"java.util.TreeSet":                                 {via: "m"},
	"java.util.concurrent.ConcurrentHashMap$KeySetView": {via: "map"},
}

// collectionState is what Collections learns of one collection.
type collectionState struct {
	rule     collectionRule
	jdkClass string
	read     bool
	size     int64
	capacity int64
	empty    int64
	// backing is a set's map; cells a ConcurrentHashMap's counter cells.
	backing model.ObjectIndex
	cells   model.ObjectIndex
}

// Collections measures the heap's JDK collections (size, capacity, fill
// ratio, bytes wasted on empty slots: empty slots times the size of a
// reference) and its wasteful arrays, reading the collections' fields and
// the arrays from the dump at path (model.EachValues). Sums are per class,
// most wasted first.
func Collections(h *model.Heap, path string, o CollectionOptions) (CollectionReport, error) {
	var rep CollectionReport
	ruleOf := make([]*collectionRule, len(h.Classes))
	jdkOf := make([]string, len(h.Classes))
	for c := range h.Classes {
		for k := range h.Supers(model.ClassIndex(c)) {
			if r, ok := collectionRules[h.Classes[k].Name]; ok {
				ruleOf[c], jdkOf[c] = &r, h.Classes[k].Name
				break
			}
		}
	}
	ref := int64(h.Layout.Ref)
	if o.Size == model.SizeFields || ref == 0 {
		ref = int64(h.Source.IDSize)
	}
	var colls, arrays []model.ObjectIndex
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		c := h.ClassOf(obj)
		if c == model.NoClass || isClassObject(h, obj) {
			continue
		}
		switch {
		case ruleOf[c] != nil:
			colls = append(colls, obj)
		case h.Classes[c].Elem == model.TypeObject:
			if h.ArrayLength(obj) > 0 && len(h.Refs(obj)) == 0 {
				arrays = append(arrays, obj)
			}
		case h.Classes[c].IsArray():
			if h.ArrayLength(obj) >= 2 {
				arrays = append(arrays, obj)
			}
		}
	}
	n := len(colls)
	states := make([]collectionState, n)
	// kinds[k] and constants[k] are what the array arrays[k] turned out to
	// be: ArrayAllNull, ArrayConstant with its first element's bits, or "".
	kinds := make([]string, len(arrays))
	constants := make([]uint64, len(arrays))
	err := model.EachValues(h, path, append(slices.Clone(colls), arrays...), func(k int, v *model.ObjectValues) error {
		if k >= n {
			k -= n
			size := len(v.Data) / max(int(v.Length), 1)
			switch {
			case v.Length < 0:
			case v.Elem == model.TypeObject:
				if len(bytes.Trim(v.Data, "\x00")) == 0 {
					kinds[k] = ArrayAllNull
				}
			case v.Length >= 2 && v.HasElements() && bytes.Equal(v.Data[size:], v.Data[:len(v.Data)-size]):
				kinds[k], constants[k] = ArrayConstant, v.Element(0).Bits
			}
			return nil
		}
		obj := colls[k]
		st := &states[k]
		st.rule, st.jdkClass, st.read = *ruleOf[h.ClassOf(obj)], jdkOf[h.ClassOf(obj)], true
		st.backing, st.cells = model.NoObject, model.NoObject
		intField := func(name string) int64 {
			f, _ := v.Field(name)
			return int64(int32(f.Bits))
		}
		var table model.ObjectIndex = model.NoObject
		if st.rule.array != "" {
			if f, ok := v.Field(st.rule.array); ok && f.Ref != model.NoObject && h.Classes[h.ClassOf(f.Ref)].IsArray() {
				table = f.Ref
			}
		}
		length := int64(0)
		if table != model.NoObject {
			length = int64(h.ArrayLength(table))
		}
		switch {
		case st.rule.via != "":
			f, _ := v.Field(st.rule.via)
			st.backing = f.Ref
			return nil
		case st.jdkClass == "java.util.ArrayDeque":
			head, tail := intField("head"), intField("tail")
			if length > 0 {
				st.size = ((tail-head)%length + length) % length
			}
		case st.jdkClass == "java.util.concurrent.CopyOnWriteArrayList":
			st.size = length
		case st.jdkClass == "java.util.concurrent.ConcurrentHashMap":
			f, _ := v.Field("baseCount")
			st.size = int64(f.Bits)
			if c, ok := v.Field("counterCells"); ok {
				st.cells = c.Ref
			}
		default:
			st.size = intField(st.rule.size)
		}
		switch {
		case st.rule.array == "":
			st.capacity = st.size
		case st.rule.pairs:
			st.capacity = length / 2
			st.empty = max(length-2*st.size, 0)
		case st.rule.hashed:
			st.capacity = length
			if table != model.NoObject {
				st.empty = length - int64(len(h.Refs(table)))
			}
		default:
			st.capacity = length
			st.empty = max(length-st.size, 0)
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	arrayKind := map[model.ObjectIndex]string{}
	arrayValue := map[model.ObjectIndex]any{}
	for i := range h.NumObjects() {
		obj := model.ObjectIndex(i)
		if c := h.ClassOf(obj); c != model.NoClass && h.Classes[c].IsArray() && !isClassObject(h, obj) && h.ArrayLength(obj) == 0 {
			arrayKind[obj] = ArrayZeroLength
		}
	}
	for k, obj := range arrays {
		switch kinds[k] {
		case ArrayAllNull:
			arrayKind[obj] = ArrayAllNull
		case ArrayConstant:
			arrayKind[obj] = ArrayConstant
			arrayValue[obj] = fieldValue(model.Value{Type: h.Classes[h.ClassOf(obj)].Elem, Bits: constants[k], Ref: model.NoObject})
		}
	}
	if err := addCounterCells(h, path, states); err != nil {
		return rep, err
	}
	// A set takes its backing map's size and slots; the map is then not
	// counted on its own.
	owned := map[model.ObjectIndex]bool{}
	for k := range states {
		st := &states[k]
		if !st.read || st.rule.via == "" {
			continue
		}
		if n, ok := slices.BinarySearch(colls, st.backing); ok && states[n].read && states[n].rule.via == "" {
			b := states[n]
			st.size, st.capacity, st.empty = b.size, b.capacity, b.empty
			owned[st.backing] = true
		}
	}
	byClass := map[string]*CollectionClass{}
	for k, obj := range colls {
		st := states[k]
		if !st.read || owned[obj] {
			continue
		}
		wasted := st.empty * ref
		row := CollectionObject{ObjectID: ObjectID(h, obj), Class: ClassName(h, obj), Size: st.size, Capacity: st.capacity, FillRatio: fillRatio(st.size, st.capacity), WastedBytes: wasted}
		rep.Collections++
		rep.WastedBytes += wasted
		if o.Objects {
			rep.Objects = append(rep.Objects, row)
			continue
		}
		cc := byClass[row.Class]
		if cc == nil {
			cc = &CollectionClass{Class: row.Class}
			byClass[row.Class] = cc
		}
		cc.Instances++
		if st.size == 0 {
			cc.Empty++
		}
		cc.Size += st.size
		cc.Capacity += st.capacity
		cc.WastedBytes += wasted
	}
	for _, cc := range byClass {
		cc.FillRatio = fillRatio(cc.Size, cc.Capacity)
		rep.Classes = append(rep.Classes, *cc)
	}
	slices.SortFunc(rep.Classes, func(x, y CollectionClass) int {
		return cmp.Or(cmp.Compare(y.WastedBytes, x.WastedBytes), cmp.Compare(y.Instances, x.Instances), cmp.Compare(x.Class, y.Class))
	})
	// Objects are in object order from the loop; the stable sort keeps
	// it among equals.
	slices.SortStableFunc(rep.Objects, func(x, y CollectionObject) int { return cmp.Compare(y.WastedBytes, x.WastedBytes) })
	rep.Classes, rep.Objects = topRows(rep.Classes, o.Top), topRows(rep.Objects, o.Top)
	arrayRows(h, &rep, arrayKind, arrayValue, o)
	return rep, nil
}

// addCounterCells adds to each ConcurrentHashMap's size the values of
// its counter cells, the part of the count that threads added under
// contention.
func addCounterCells(h *model.Heap, path string, states []collectionState) error {
	var owner []int
	var cells []model.ObjectIndex
	for k := range states {
		if c := states[k].cells; c != model.NoObject {
			for _, cell := range h.Refs(c) {
				owner = append(owner, k)
				cells = append(cells, cell)
			}
		}
	}
	if len(cells) == 0 {
		return nil
	}
	values := make([]int64, len(cells))
	err := model.EachValues(h, path, cells, func(k int, v *model.ObjectValues) error {
		if f, ok := v.Field("value"); ok && v.Length < 0 {
			values[k] = int64(f.Bits)
		}
		return nil
	})
	for k, v := range values {
		states[owner[k]].size += v
	}
	return err
}

// arrayRows fills the array part of rep from the kind of each wasteful
// array.
func arrayRows(h *model.Heap, rep *CollectionReport, kind map[model.ObjectIndex]string, value map[model.ObjectIndex]any, o CollectionOptions) {
	objs := make([]model.ObjectIndex, 0, len(kind))
	for obj := range kind {
		objs = append(objs, obj)
	}
	slices.Sort(objs)
	byClass := map[string]*ArrayClassWaste{}
	for _, obj := range objs {
		b := shallowBytes(h, obj, o.Size)
		rep.ArrayBytes += b
		if o.Objects {
			rep.ArrayObjects = append(rep.ArrayObjects, ArrayObject{ObjectID: ObjectID(h, obj), Class: ClassName(h, obj), Length: int64(h.ArrayLength(obj)), Kind: kind[obj], Bytes: b, Value: value[obj]})
			continue
		}
		name := ClassName(h, obj)
		a := byClass[name]
		if a == nil {
			a = &ArrayClassWaste{Class: name}
			byClass[name] = a
		}
		switch kind[obj] {
		case ArrayZeroLength:
			a.ZeroLength++
			a.ZeroLengthBytes += b
		case ArrayAllNull:
			a.AllNull++
			a.AllNullBytes += b
		case ArrayConstant:
			a.Constant++
			a.ConstantBytes += b
		}
	}
	for _, a := range byClass {
		rep.Arrays = append(rep.Arrays, *a)
	}
	total := func(a ArrayClassWaste) int64 { return a.ZeroLengthBytes + a.AllNullBytes + a.ConstantBytes }
	slices.SortFunc(rep.Arrays, func(x, y ArrayClassWaste) int {
		return cmp.Or(cmp.Compare(total(y), total(x)), cmp.Compare(x.Class, y.Class))
	})
	slices.SortStableFunc(rep.ArrayObjects, func(x, y ArrayObject) int { return cmp.Compare(y.Bytes, x.Bytes) })
	rep.Arrays, rep.ArrayObjects = topRows(rep.Arrays, o.Top), topRows(rep.ArrayObjects, o.Top)
}

// fillRatio is size / capacity, 1 for a capacity of 0 (nothing is
// empty).
func fillRatio(size, capacity int64) float64 {
	if capacity <= 0 {
		return 1
	}
	return float64(size) / float64(capacity)
}

// topRows keeps the first n rows; n 0 keeps all.
func topRows[T any](rows []T, n int) []T {
	if n > 0 && len(rows) > n {
		return rows[:n]
	}
	return rows
}
