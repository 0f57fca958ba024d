package heap

import (
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
)

// StringOptions choose the groups DuplicateStrings lists.
type StringOptions struct {
	// MinCount lists only values held by at least MinCount Strings
	// (at least 2).
	MinCount int
	// Top keeps the Top groups that waste most; 0 keeps all.
	Top  int
	Size model.SizeMode
	// Heaps selects the Android heaps whose Strings count.
	Heaps model.HeapSelection
}

// DuplicateString is one value held by several java.lang.String objects.
type DuplicateString struct {
	Value string `json:"value"`
	// Count is the number of Strings with this value.
	Count int64 `json:"count"`
	// WastedBytes is what all copies but one take: every String but one,
	// and every value array but one (Strings that share one array count
	// it once).
	WastedBytes int64 `json:"wasted_bytes"`
}

// DuplicateStringReport is the result of DuplicateStrings.
type DuplicateStringReport struct {
	Rows []DuplicateString
	// Groups counts the values held by at least MinCount Strings,
	// WastedBytes is what all of them waste, Strings counts every String
	// of the heap.
	Groups      int
	WastedBytes int64
	Strings     int64
}

// stringKey identifies a String value: its array's element type and
// length, the coder, and two independent hashes of the array's bytes
// (128 bits: two different values sharing a key is not to be expected
// in any heap).
type stringKey struct {
	elem        model.Type
	coder       uint8
	length      int64
	hash, hash2 uint64
}

// stringGroup is what DuplicateStrings gathers of one value.
type stringGroup struct {
	count, wasted int64
	// first is the String with the lowest object index, the one read
	// again for the text.
	first model.ObjectIndex
}

// DuplicateStrings groups the heap's java.lang.String objects by value,
// as Eclipse MAT's "Group by value": each value held by at least
// o.MinCount Strings, with its count and the bytes wasted by the copies,
// most wasted first. The heap's array digests (model.Heap.ArrayContents)
// single out the Strings whose value array another String's may equal;
// only those Strings and their arrays are read from the heap's dump
// (model.EachValues) and compared by their bytes, and the texts of the
// listed values read again.
func DuplicateStrings(h *model.Heap, o StringOptions) (DuplicateStringReport, error) {
	var rep DuplicateStringReport
	class := classByName(h, "java.lang.String")
	if class == model.NoClass {
		return rep, nil
	}
	strs, valueOf := stringCandidates(h, class, o.Heaps, &rep)
	entries, err := hashStrings(h, strs, valueOf)
	if err != nil {
		return rep, err
	}
	keep := groupStrings(h, entries, o, &rep)
	rep.Groups = len(keep)
	// Most wasted first; ties by count, then by the first String's
	// index, so the order does not depend on the map's.
	slices.SortFunc(keep, func(x, y stringGroup) int {
		return cmp.Or(cmp.Compare(y.wasted, x.wasted), cmp.Compare(y.count, x.count), cmp.Compare(x.first, y.first))
	})
	if o.Top > 0 && len(keep) > o.Top {
		keep = keep[:o.Top]
	}
	rep.Rows, err = stringRows(h, keep)
	return rep, err
}

// stringCandidates counts the Strings of the heaps selected into
// rep.Strings and returns those whose value another String may hold, with
// their value arrays. Each String's value array is its only reference.
// Two Strings can hold one value only if their arrays have the same
// digest and length: that pair, as one number, is each String's sketch.
func stringCandidates(h *model.Heap, class model.ClassIndex, heaps model.HeapSelection, rep *DuplicateStringReport) (strs, valueOf []model.ObjectIndex) {
	expect := min(int(h.Classes[class].Instances), h.NumObjects())
	strs, valueOf = make([]model.ObjectIndex, 0, expect), make([]model.ObjectIndex, 0, expect)
	sketches := make([]uint64, 0, expect)
	for i := range h.NumObjects() {
		s := model.ObjectIndex(i)
		// (A class object's class is java.lang.Class, never String.)
		if h.ClassOf(s) != class || !heaps.Has(s) {
			continue
		}
		rep.Strings++
		refs := h.Refs(s)
		if len(refs) != 1 {
			continue
		}
		if digest, _, recorded := h.ArrayContents(refs[0]); recorded {
			strs = append(strs, s)
			valueOf = append(valueOf, refs[0])
			sketches = append(sketches, uint64(digest)<<32|uint64(h.ArrayLength(refs[0])))
		}
	}
	shared := parallel.RepeatedValues(sketches)
	candidates := strs[:0]
	candidateArrays := valueOf[:0]
	for k, s := range strs {
		if _, ok := shared[sketches[k]]; ok {
			candidates = append(candidates, s)
			candidateArrays = append(candidateArrays, valueOf[k])
		}
	}
	return candidates, candidateArrays
}

// stringEntry is one String with the key of its value and its array.
type stringEntry struct {
	key      stringKey
	array, s model.ObjectIndex
}

// arrayHash stands for the bytes of a String's value array: two
// independent hashes of them, its length and element type; read is set
// once the array was read.
type arrayHash struct {
	hash, hash2 uint64
	length      uint32
	elem        model.Type
	read        bool
}

// hashStrings reads the Strings strs and their value arrays valueOf from
// the dump and returns an entry for each String whose array was read,
// sorted by value (then by array): each value's copies together, each of
// its arrays once after the other. An array that several Strings share
// (JDK 8's new String(String)) is read for each of them.
func hashStrings(h *model.Heap, strs, valueOf []model.ObjectIndex) ([]stringEntry, error) {
	seed1, seed2 := maphash.MakeSeed(), maphash.MakeSeed()
	n := len(strs)
	hashes := make([]arrayHash, n)
	coders := make([]uint8, n)
	objs := append(append(make([]model.ObjectIndex, 0, 2*n), strs...), valueOf...)
	err := model.EachValues(h, objs, func(k int, v *model.ObjectValues) error {
		switch {
		case k < n:
			coders[k] = uint8(model.StringCoder(v))
		case v.Length >= 0 && v.HasElements():
			hashes[k-n] = arrayHash{maphash.Bytes(seed1, v.Data), maphash.Bytes(seed2, v.Data), uint32(v.Length), v.Elem, true}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	entries := make([]stringEntry, 0, n)
	for k, s := range strs {
		if ah := hashes[k]; ah.read {
			entries = append(entries, stringEntry{stringKey{ah.elem, coders[k], int64(ah.length), ah.hash, ah.hash2}, valueOf[k], s})
		}
	}
	slices.SortFunc(entries, func(x, y stringEntry) int {
		a, b := x.key, y.key
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.hash2, b.hash2), cmp.Compare(a.length, b.length),
			cmp.Compare(a.elem, b.elem), cmp.Compare(a.coder, b.coder), cmp.Compare(x.array, y.array), cmp.Compare(x.s, y.s))
	})
	return entries, nil
}

// groupStrings returns the values held by at least o.MinCount (and 2)
// of the sorted entries, with the bytes their copies waste, adding those
// to rep.WastedBytes.
func groupStrings(h *model.Heap, entries []stringEntry, o StringOptions, rep *DuplicateStringReport) []stringGroup {
	minCount := int64(max(o.MinCount, 2))
	var keep []stringGroup
	for k := 0; k < len(entries); {
		j := k + 1
		for j < len(entries) && entries[j].key == entries[k].key {
			j++
		}
		if int64(j-k) >= minCount {
			g := stringGroup{count: int64(j - k), first: entries[k].s}
			for n := k + 1; n < j; n++ {
				e := entries[n]
				g.wasted += graph.ShallowBytes(h, e.s, o.Size)
				if e.array != entries[n-1].array {
					g.wasted += graph.ShallowBytes(h, e.array, o.Size)
				}
				g.first = min(g.first, e.s)
			}
			keep = append(keep, g)
			rep.WastedBytes += g.wasted
		}
		k = j
	}
	return keep
}

// stringRows are the rows of the groups keep, with the text of each read
// again from its first String; rows of equal waste and count in value
// order.
func stringRows(h *model.Heap, keep []stringGroup) ([]DuplicateString, error) {
	firsts := make([]model.ObjectIndex, len(keep))
	for k, g := range keep {
		firsts[k] = g.first
	}
	texts, err := model.ReadStrings(h, firsts)
	if err != nil {
		return nil, err
	}
	rows := make([]DuplicateString, len(keep))
	for k, g := range keep {
		rows[k] = DuplicateString{Value: texts[g.first], Count: g.count, WastedBytes: g.wasted}
	}
	slices.SortStableFunc(rows, func(x, y DuplicateString) int {
		return cmp.Or(cmp.Compare(y.WastedBytes, x.WastedBytes), cmp.Compare(y.Count, x.Count), cmp.Compare(x.Value, y.Value))
	})
	return rows, nil
}

// classByName is the first class of that name, NoClass when there is
// none.
func classByName(h *model.Heap, name string) model.ClassIndex {
	for c := range h.Classes {
		if h.Classes[c].Name == name {
			return model.ClassIndex(c)
		}
	}
	return model.NoClass
}
