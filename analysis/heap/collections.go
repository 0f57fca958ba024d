package heap

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"unsafe"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// CollectionOptions choose what Collections lists.
type CollectionOptions struct {
	// Objects lists each collection and each wasteful array instead of
	// sums per class.
	Objects bool
	// Top keeps the Top rows of each list that waste most; 0 keeps all.
	Top  int
	Size model.SizeMode
	// Heaps selects the Android heaps whose collections and arrays count.
	Heaps model.HeapSelection
	// Sums, when set, are the heap's sums kept in an index: a question
	// they answer (sums over every heap in their size mode) is answered
	// from them.
	Sums *CollectionSums
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

// collectionState is what Collections learns of one collection.
// It holds no pointers, so that the collector need not scan the
// millions of them a big heap has.
type collectionState struct {
	// class is the JDK class whose rule applies, as an index into
	// jdkClasses.
	class int16
	read  bool
	// resolved marks a collection whose backing or parts were measured
	// into it (or that has none). (Beside class and read, it leaves the
	// state 48 bytes long, not 56: a build holds one per collection.)
	resolved bool
	size     int64
	capacity int64
	empty    int64
	// backing is the collection that holds the elements (rule.via);
	// parts the array of the sub-collections that do (rule.parts); cells
	// a ConcurrentHashMap's counter cells; box the object whose "value"
	// is the size (rule.sizeBox).
	backing model.ObjectIndex
	parts   model.ObjectIndex
	cells   model.ObjectIndex
	box     model.ObjectIndex
}

// stateWords is the length of a collectionState in 64-bit words; the
// array's length is 0 unless that is a whole number.
const stateWords = int(unsafe.Sizeof(collectionState{}) / 8)

var _ [0]struct{} = [unsafe.Sizeof(collectionState{}) % 8]struct{}{}

// makeStates returns n zeroed collection states, a table within the
// build's memory budget (model/bigmem): a big heap has millions of
// collections, and a build sums them alongside its other work. Give it
// back with freeStates.
func makeStates(n int) []collectionState {
	if n == 0 {
		return nil
	}
	words := bigmem.Make[uint64](n * stateWords)
	return unsafe.Slice((*collectionState)(unsafe.Pointer(unsafe.SliceData(words))), n)
}

// freeStates gives back states that makeStates returned.
func freeStates(states []collectionState) {
	if len(states) > 0 {
		bigmem.Free(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(states))), len(states)*stateWords))
	}
}

// rule is the rule the collection follows.
func (st *collectionState) rule() collectionRule { return jdkRules[st.class] }

// jdkClasses are the names of collectionRules, sorted; jdkRules their
// rules in the same order.
var (
	jdkClasses = slices.Sorted(maps.Keys(collectionRules))
	jdkRules   = func() []collectionRule {
		rules := make([]collectionRule, len(jdkClasses))
		for k, name := range jdkClasses {
			rules[k] = collectionRules[name]
		}
		return rules
	}()
)

// Collections measures the heap's JDK collections (size, capacity, fill
// ratio, bytes wasted on empty slots: empty slots times the size of a
// reference) and its wasteful arrays, reading the collections' fields
// from the heap's dump (model.EachValues): which arrays are all null or
// constant the heap knows (model.Heap.ArrayContents); a constant array's
// value is read only to list it. Sums are per class, most wasted first.
func Collections(h *model.Heap, o CollectionOptions) (CollectionReport, error) {
	if o.Sums.answers(o) {
		return o.Sums.report(h, o), nil
	}
	var rep CollectionReport
	jdkOf := jdkClassesOf(h)
	colls, wasteful := findCollections(h, jdkOf, o.Heaps)
	states, owned, err := measureCollections(h, colls, jdkOf)
	if err != nil {
		return rep, err
	}
	defer freeStates(states)
	collectionRows(h, &rep, colls, states, owned, o)
	return rep, arrayRows(h, &rep, wasteful, o)
}

// measureCollections reads and measures the collections colls (in object
// order) and returns the collections that others own.
func measureCollections(h *model.Heap, colls []model.ObjectIndex, jdkOf []int16) ([]collectionState, map[model.ObjectIndex]bool, error) {
	states, err := readCollections(h, colls, jdkOf)
	if err == nil {
		err = addCounterCells(h, states)
	}
	if err != nil {
		freeStates(states)
		return nil, nil, err
	}
	countNodes(h, colls, states)
	return states, resolveBacking(h, colls, states), nil
}

// MeasureCollection measures the objects objs that are JDK collections
// Collections knows, as Collections does, owned ones included (a
// HashSet's HashMap, a ConcurrentHashMap's segment); the others are left
// out. Rows come in the order of objs.
func MeasureCollection(h *model.Heap, objs []model.ObjectIndex) ([]CollectionObject, error) {
	jdkOf := jdkClassesOf(h)
	colls, _ := findCollections(h, jdkOf, model.HeapSelection{})
	states, _, err := measureCollections(h, colls, jdkOf)
	if err != nil {
		return nil, err
	}
	defer freeStates(states)
	ref := int64(h.Layout.Ref)
	if ref == 0 {
		ref = int64(h.Source.IDSize)
	}
	var out []CollectionObject
	for _, obj := range objs {
		k, ok := slices.BinarySearch(colls, obj)
		if !ok || !states[k].read {
			continue
		}
		st := states[k]
		out = append(out, CollectionObject{ObjectID: ObjectID(h, obj), Class: ClassName(h, obj), Size: st.size,
			Capacity: st.capacity, FillRatio: fillRatio(st.size, st.capacity), WastedBytes: st.empty * ref})
	}
	return out, nil
}

// jdkClassesOf returns, for each class of h, the place in jdkClasses of
// the JDK class whose rule it follows, -1 for none.
func jdkClassesOf(h *model.Heap) []int16 {
	jdkOf := make([]int16, len(h.Classes))
	for c := range h.Classes {
		jdkOf[c] = -1
		for k := range h.Supers(model.ClassIndex(c)) {
			if j, ok := slices.BinarySearch(jdkClasses, h.Classes[k].Name); ok {
				jdkOf[c] = int16(j)
				break
			}
		}
	}
	return jdkOf
}

// findCollections returns the collections among the objects of the heaps
// selected, and the wasteful arrays, both in object order. The heap knows
// each array's length and whether its elements are all equal; only the
// collections, and the listed constant arrays (for their value), are
// read from the dump. The objects are looked at in chunks on every
// processor, each chunk's finds appended in chunk order.
func findCollections(h *model.Heap, jdkOf []int16, heaps model.HeapSelection) ([]model.ObjectIndex, []wastefulArray) {
	expect := 0
	for c := range h.Classes {
		if jdkOf[c] >= 0 {
			expect += int(h.Classes[c].Instances)
		}
	}
	colls := make([]model.ObjectIndex, 0, min(expect, h.NumObjects()))
	var wasteful []wastefulArray
	// A chunk's finds are kept in a buffer that serves again once added.
	buffers := sync.Pool{New: func() any { return new(collectionsFound) }}
	parallel.ForChunksInOrder(h.NumObjects(), parallel.ObjectChunk, func(lo, hi int) func() {
		found := buffers.Get().(*collectionsFound)
		found.colls, found.wasteful = findCollectionsIn(h, jdkOf, heaps, lo, hi, found.colls[:0], found.wasteful[:0])
		return func() {
			colls = append(colls, found.colls...)
			wasteful = append(wasteful, found.wasteful...)
			buffers.Put(found)
		}
	})
	return colls, wasteful
}

// collectionsFound are the collections and wasteful arrays of a chunk of
// objects.
type collectionsFound struct {
	colls    []model.ObjectIndex
	wasteful []wastefulArray
}

// findCollectionsIn appends to colls and wasteful what findCollections
// finds among the objects [lo, hi).
func findCollectionsIn(h *model.Heap, jdkOf []int16, heaps model.HeapSelection, lo, hi int, colls []model.ObjectIndex, wasteful []wastefulArray) ([]model.ObjectIndex, []wastefulArray) {
	classClass := h.ClassClass()
	for i := lo; i < hi; i++ {
		obj := model.ObjectIndex(i)
		c := h.ClassOf(obj)
		if c == model.NoClass || c == classClass || !heaps.Has(obj) {
			continue
		}
		cl := &h.Classes[c]
		switch {
		case jdkOf[c] >= 0:
			colls = append(colls, obj)
		case cl.IsArray():
			length := h.ArrayLength(obj)
			if length == 0 {
				wasteful = append(wasteful, wastefulArray{obj, zeroLength})
				continue
			}
			if _, uniform, recorded := h.ArrayContents(obj); !uniform || !recorded {
				continue
			}
			switch {
			case cl.Elem == model.TypeObject:
				wasteful = append(wasteful, wastefulArray{obj, allNull})
			case length >= 2:
				wasteful = append(wasteful, wastefulArray{obj, constantElements})
			}
		}
	}
	return colls, wasteful
}

// readCollections reads the fields of the collections colls from the
// dump and measures each.
func readCollections(h *model.Heap, colls []model.ObjectIndex, jdkOf []int16) ([]collectionState, error) {
	states := makeStates(len(colls))
	err := model.EachValues(h, colls, func(k int, v *model.ObjectValues) error {
		st := &states[k]
		st.class, st.read = jdkOf[h.ClassOf(colls[k])], true
		st.measure(h, v)
		return nil
	})
	return states, err
}

// collectionRows fills the collection part of rep from the measured
// collections but the owned maps. Rows are made only for what is listed:
// per class, or the objects that waste most (in object order among
// equals).
func collectionRows(h *model.Heap, rep *CollectionReport, colls []model.ObjectIndex, states []collectionState, owned map[model.ObjectIndex]bool, o CollectionOptions) {
	ref := int64(h.Layout.Ref)
	if o.Size == model.SizeFields || ref == 0 {
		ref = int64(h.Source.IDSize)
	}
	byClass := map[string]*CollectionClass{}
	className := make([]string, len(h.Classes))
	type listed struct {
		k      int
		wasted int64
	}
	var objects []listed
	for k, obj := range colls {
		st := states[k]
		if !st.read || owned[obj] {
			continue
		}
		wasted := st.empty * ref
		rep.Collections++
		rep.WastedBytes += wasted
		if o.Objects {
			objects = append(objects, listed{k, wasted})
			continue
		}
		c := h.ClassOf(obj)
		if className[c] == "" {
			className[c] = ClassName(h, obj)
		}
		cc := byClass[className[c]]
		if cc == nil {
			cc = &CollectionClass{Class: className[c]}
			byClass[className[c]] = cc
		}
		cc.Instances++
		if st.size == 0 {
			cc.Empty++
		}
		cc.Size += st.size
		cc.Capacity += st.capacity
		cc.WastedBytes += wasted
	}
	rep.Classes = rankCollectionClasses(byClass, o.Top)
	slices.SortStableFunc(objects, func(x, y listed) int { return cmp.Compare(y.wasted, x.wasted) })
	for _, l := range topRows(objects, o.Top) {
		st, obj := states[l.k], colls[l.k]
		rep.Objects = append(rep.Objects, CollectionObject{ObjectID: ObjectID(h, obj), Class: ClassName(h, obj), Size: st.size,
			Capacity: st.capacity, FillRatio: fillRatio(st.size, st.capacity), WastedBytes: l.wasted})
	}
}

// rankCollectionClasses is the rows of byClass, each with its fill ratio:
// those wasting most bytes first (then most instances, then by name),
// the first top of them.
func rankCollectionClasses(byClass map[string]*CollectionClass, top int) []CollectionClass {
	var rows []CollectionClass
	for _, cc := range byClass {
		cc.FillRatio = fillRatio(cc.Size, cc.Capacity)
		rows = append(rows, *cc)
	}
	slices.SortFunc(rows, func(x, y CollectionClass) int {
		return cmp.Or(cmp.Compare(y.WastedBytes, x.WastedBytes), cmp.Compare(y.Instances, x.Instances), cmp.Compare(x.Class, y.Class))
	})
	return topRows(rows, top)
}

// rankArrayWaste is the rows of byClass: those wasting most bytes first
// (then by name), the first top of them.
func rankArrayWaste(byClass map[string]*ArrayClassWaste, top int) []ArrayClassWaste {
	var rows []ArrayClassWaste
	for _, a := range byClass {
		rows = append(rows, *a)
	}
	total := func(a ArrayClassWaste) int64 { return a.ZeroLengthBytes + a.AllNullBytes + a.ConstantBytes }
	slices.SortFunc(rows, func(x, y ArrayClassWaste) int {
		return cmp.Or(cmp.Compare(total(y), total(x)), cmp.Compare(x.Class, y.Class))
	})
	return topRows(rows, top)
}

// wastefulArray is an array of length 0, of nulls only or of one
// constant value, as kind says.
type wastefulArray struct {
	obj  model.ObjectIndex
	kind arrayWaste
}

// arrayWaste is a kind of wasteful array; arrayKinds names each.
type arrayWaste uint8

const (
	zeroLength arrayWaste = iota
	allNull
	constantElements
)

var arrayKinds = [...]string{zeroLength: ArrayZeroLength, allNull: ArrayAllNull, constantElements: ArrayConstant}

// arrayRows fills the array part of rep from the wasteful arrays, in
// object order: sums per class, or the arrays that waste most, with the
// value of each listed constant array read from the dump.
func arrayRows(h *model.Heap, rep *CollectionReport, wasteful []wastefulArray, o CollectionOptions) error {
	byClass := map[string]*ArrayClassWaste{}
	className := make([]string, len(h.Classes))
	type listed struct {
		wastefulArray
		bytes int64
	}
	var objects []listed
	for _, w := range wasteful {
		b := graph.ShallowBytes(h, w.obj, o.Size)
		rep.ArrayBytes += b
		if o.Objects {
			objects = append(objects, listed{w, b})
			continue
		}
		c := h.ClassOf(w.obj)
		if className[c] == "" {
			className[c] = ClassName(h, w.obj)
		}
		a := byClass[className[c]]
		if a == nil {
			a = &ArrayClassWaste{Class: className[c]}
			byClass[className[c]] = a
		}
		switch w.kind {
		case zeroLength:
			a.ZeroLength++
			a.ZeroLengthBytes += b
		case allNull:
			a.AllNull++
			a.AllNullBytes += b
		case constantElements:
			a.Constant++
			a.ConstantBytes += b
		}
	}
	rep.Arrays = rankArrayWaste(byClass, o.Top)
	slices.SortStableFunc(objects, func(x, y listed) int { return cmp.Compare(y.bytes, x.bytes) })
	objects = topRows(objects, o.Top)
	var constant []model.ObjectIndex
	for _, l := range objects {
		if l.kind == constantElements {
			constant = append(constant, l.obj)
		}
	}
	values := make([]any, len(constant))
	err := model.EachValues(h, constant, func(k int, v *model.ObjectValues) error {
		if v.HasElements() {
			values[k] = fieldValue(v.Element(0))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, l := range objects {
		row := ArrayObject{ObjectID: ObjectID(h, l.obj), Class: ClassName(h, l.obj), Length: int64(h.ArrayLength(l.obj)), Kind: arrayKinds[l.kind], Bytes: l.bytes}
		if l.kind == constantElements {
			row.Value, values = values[0], values[1:]
		}
		rep.ArrayObjects = append(rep.ArrayObjects, row)
	}
	return nil
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
