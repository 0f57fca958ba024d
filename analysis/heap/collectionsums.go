package heap

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionCollectionSums is the index section CollectionSums are kept in.
const SectionCollectionSums = "collections.sums"

// CollectionSums are the per-class sums `collections` lists, worked out
// once for the index: per class, its collections' counts, sizes,
// capacities and empty slots (the collections other ones own left out),
// and its wasteful arrays' counts and shallow bytes in size mode Size.
// Collections answers from them when asked for sums over every heap in
// that size mode, instead of reading every collection from the dump.
type CollectionSums struct {
	Size    model.SizeMode       `json:"size"`
	Classes []collectionClassSum `json:"classes"`
	Arrays  []arrayClassSum      `json:"arrays"`
}

// collectionClassSum sums the collections of one class (by index).
type collectionClassSum struct {
	Class      int32 `json:"class"`
	Instances  int64 `json:"instances"`
	Empty      int64 `json:"empty"`
	Size       int64 `json:"size"`
	Capacity   int64 `json:"capacity"`
	EmptySlots int64 `json:"empty_slots"`
}

// arrayClassSum sums the wasteful arrays of one array class (by index).
type arrayClassSum struct {
	Class int32 `json:"class"`
	// Count and Bytes are per kind of waste (arrayWaste).
	Count [3]int64 `json:"count"`
	Bytes [3]int64 `json:"bytes"`
}

// SumCollections works out h's CollectionSums in size mode size, reading
// every collection's fields from the dump as Collections does.
func SumCollections(h *model.Heap, size model.SizeMode) (*CollectionSums, error) {
	jdkOf := jdkClassesOf(h)
	colls, wasteful := findCollections(h, jdkOf, model.HeapSelection{})
	states, owned, err := measureCollections(h, colls, jdkOf)
	if err != nil {
		return nil, err
	}
	defer freeStates(states)
	byClass := map[model.ClassIndex]*collectionClassSum{}
	for k, obj := range colls {
		st := states[k]
		if !st.read || owned[obj] {
			continue
		}
		c := h.ClassOf(obj)
		cs := byClass[c]
		if cs == nil {
			cs = &collectionClassSum{Class: int32(c)}
			byClass[c] = cs
		}
		cs.Instances++
		if st.size == 0 {
			cs.Empty++
		}
		cs.Size += st.size
		cs.Capacity += st.capacity
		cs.EmptySlots += st.empty
	}
	arrays := map[model.ClassIndex]*arrayClassSum{}
	for _, w := range wasteful {
		c := h.ClassOf(w.obj)
		as := arrays[c]
		if as == nil {
			as = &arrayClassSum{Class: int32(c)}
			arrays[c] = as
		}
		as.Count[w.kind]++
		as.Bytes[w.kind] += graph.ShallowBytes(h, w.obj, size)
	}
	s := &CollectionSums{Size: size}
	for _, cs := range byClass {
		s.Classes = append(s.Classes, *cs)
	}
	for _, as := range arrays {
		s.Arrays = append(s.Arrays, *as)
	}
	slices.SortFunc(s.Classes, func(a, b collectionClassSum) int { return cmp.Compare(a.Class, b.Class) })
	slices.SortFunc(s.Arrays, func(a, b arrayClassSum) int { return cmp.Compare(a.Class, b.Class) })
	return s, nil
}

// WriteCollectionSums writes s into the index w.
func WriteCollectionSums(w *store.Writer, s *CollectionSums) error {
	return w.WriteJSON(SectionCollectionSums, s)
}

// ReadCollectionSums reads the sums that WriteCollectionSums wrote into
// ix for heap h; nil when the index keeps none. Each names a class of h
// once, collections of a JDK class Collections measures and arrays of an
// array class, with no more of them than the class has instances.
func ReadCollectionSums(ix *store.Index, h *model.Heap) (*CollectionSums, error) {
	s, err := store.OptionalJSON[CollectionSums](ix, SectionCollectionSums)
	if s == nil || err != nil {
		return nil, err
	}
	jdkOf := jdkClassesOf(h)
	fits := func(c int32, count int64, array bool) bool {
		return c >= 0 && int(c) < len(h.Classes) && count >= 0 && count <= h.Classes[c].Instances &&
			(array && h.Classes[c].IsArray() || !array && jdkOf[c] >= 0)
	}
	for k, cs := range s.Classes {
		if !fits(cs.Class, cs.Instances, false) || cs.Empty < 0 || cs.Empty > cs.Instances || k > 0 && cs.Class <= s.Classes[k-1].Class {
			return nil, fmt.Errorf("%w: the collection sums of class %d do not fit the heap", store.ErrCorrupt, cs.Class)
		}
	}
	for k, as := range s.Arrays {
		if !fits(as.Class, as.Count[0]+as.Count[1]+as.Count[2], true) || min(as.Count[0], as.Count[1], as.Count[2]) < 0 || k > 0 && as.Class <= s.Arrays[k-1].Class {
			return nil, fmt.Errorf("%w: the wasteful array sums of class %d do not fit the heap", store.ErrCorrupt, as.Class)
		}
	}
	return s, nil
}

// answers reports whether s gives Collections's answer for o.
func (s *CollectionSums) answers(o CollectionOptions) bool {
	return s != nil && !o.Objects && o.Heaps.All() && o.Size == s.Size
}

// report is Collections's answer for o from s: the rows per class name,
// ordered and cut as collectionRows and arrayRows order and cut them.
func (s *CollectionSums) report(h *model.Heap, o CollectionOptions) CollectionReport {
	var rep CollectionReport
	ref := int64(h.Layout.Ref)
	if o.Size == model.SizeFields || ref == 0 {
		ref = int64(h.Source.IDSize)
	}
	byName := map[string]*CollectionClass{}
	for _, cs := range s.Classes {
		name := h.Classes[cs.Class].Name
		cc := byName[name]
		if cc == nil {
			cc = &CollectionClass{Class: name}
			byName[name] = cc
		}
		cc.Instances += cs.Instances
		cc.Empty += cs.Empty
		cc.Size += cs.Size
		cc.Capacity += cs.Capacity
		cc.WastedBytes += cs.EmptySlots * ref
		rep.Collections += cs.Instances
		rep.WastedBytes += cs.EmptySlots * ref
	}
	rep.Classes = rankCollectionClasses(byName, o.Top)
	arrays := map[string]*ArrayClassWaste{}
	for _, as := range s.Arrays {
		name := h.Classes[as.Class].Name
		a := arrays[name]
		if a == nil {
			a = &ArrayClassWaste{Class: name}
			arrays[name] = a
		}
		a.ZeroLength += as.Count[zeroLength]
		a.ZeroLengthBytes += as.Bytes[zeroLength]
		a.AllNull += as.Count[allNull]
		a.AllNullBytes += as.Bytes[allNull]
		a.Constant += as.Count[constantElements]
		a.ConstantBytes += as.Bytes[constantElements]
		rep.ArrayBytes += as.Bytes[zeroLength] + as.Bytes[allNull] + as.Bytes[constantElements]
	}
	rep.Arrays = rankArrayWaste(arrays, o.Top)
	return rep
}
