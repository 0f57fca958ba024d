package heap

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// StringCensus is what DuplicateStrings needs of a heap's Strings,
// whatever its size mode, count and cut: how many Strings there are, and
// every value at least two of them hold. The index keeps the census of
// every heap, so that the question reads it instead of the dump.
type StringCensus struct {
	// Strings counts every java.lang.String of the heaps counted.
	Strings int64
	// Groups are the values held by two Strings or more, by their
	// first String.
	Groups []StringGroup
}

// StringGroup is one value held by several Strings.
type StringGroup struct {
	// First is the String of the lowest object index that holds it.
	First model.ObjectIndex
	// Count is the number of Strings that hold it, Arrays the number of
	// distinct value arrays among theirs (Strings may share one: JDK 8's
	// new String(String)).
	Count, Arrays int64
	// Array is the value array of First, the String of lowest index.
	Array model.ObjectIndex
}

// CountStrings takes the census of the Strings of the heaps selected. The
// heap's array digests (model.Heap.ArrayContents) single out the Strings
// whose value array another String's may equal. Where the load took
// those Strings' values (model.Heap.StringValues), they are grouped by
// them (groupTakenValues) and the dump is not read. Otherwise only those
// Strings and their arrays are read from the heap's dump
// (model.EachStringDigest), and grouped by their array's element type
// and length, two independent 64-bit hashes of its bytes (128 bits: two
// different values sharing them is not to be expected in any heap) and
// the String's coder. The Strings are grouped in a table of the values
// found per processor (valueTable); its work arrays come from
// model/bigmem, so that they honour the build's memory budget.
func CountStrings(h *model.Heap, heaps model.HeapSelection) (StringCensus, error) {
	var c StringCensus
	class := classByName(h, "java.lang.String")
	if class == model.NoClass {
		return c, nil
	}
	strs, valueOf := stringCandidates(h, class, heaps, &c.Strings)
	defer bigmem.Free(strs)
	defer bigmem.Free(valueOf)
	firsts := firstHolders(h, valueOf)
	defer bigmem.Free(firsts)
	var table *valueTable
	if v := h.StringValues(); v != nil && v.Class() == class {
		table = groupTakenValues(h, v, strs, valueOf, firsts)
	}
	if table == nil {
		var err error
		if table, err = groupByValue(h, strs, valueOf, firsts); err != nil {
			return c, err
		}
	}
	defer table.free()
	c.Groups = table.groups(strs, valueOf)
	// The hashes' seeds change at every run; the order by first String
	// does not, so that an index is built the same every time.
	slices.SortFunc(c.Groups, func(x, y StringGroup) int { return cmp.Compare(x.First, y.First) })
	return c, nil
}

// stringCandidates counts the Strings of the heaps selected into count
// and returns those whose value another String may hold, with their value
// arrays, in object order, as tables from model/bigmem (the caller frees
// them). Each String's value array is its only reference. Two Strings can
// hold one value only if their arrays have the same digest and length:
// that pair, as one number, is each String's sketch. The objects are
// looked at once, in chunks on every processor, for the Strings, their
// arrays and sketches; then the Strings whose sketch another may have
// (repeatedSketches) are kept, in place.
func stringCandidates(h *model.Heap, class model.ClassIndex, heaps model.HeapSelection, count *int64) (strs, valueOf []model.ObjectIndex) {
	expect := min(int(h.Classes[class].Instances), h.NumObjects())
	strs, valueOf = bigmem.Make[model.ObjectIndex](expect)[:0], bigmem.Make[model.ObjectIndex](expect)[:0]
	sketches := bigmem.Make[uint64](expect)[:0]
	defer func() { bigmem.Free(sketches) }()
	// A chunk's finds are kept in a buffer that serves again once added.
	buffers := sync.Pool{New: func() any { return new(stringsFound) }}
	parallel.ForChunksInOrder(h.NumObjects(), parallel.ObjectChunk, func(lo, hi int) func() {
		found := buffers.Get().(*stringsFound)
		for i := lo; i < hi; i++ {
			s := model.ObjectIndex(i)
			// (A class object's class is java.lang.Class, never String.)
			if h.ClassOf(s) != class || !heaps.Has(s) {
				continue
			}
			found.count++
			refs := h.Refs(s)
			if len(refs) != 1 {
				continue
			}
			if digest, _, recorded := h.ArrayContents(refs[0]); recorded {
				found.strs, found.values = append(found.strs, s), append(found.values, refs[0])
				found.sketches = append(found.sketches, uint64(digest)<<32|uint64(h.ArrayLength(refs[0])))
			}
		}
		return func() {
			*count += found.count
			strs = bigmem.Append(strs, found.strs...)
			valueOf = bigmem.Append(valueOf, found.values...)
			sketches = bigmem.Append(sketches, found.sketches...)
			*found = stringsFound{strs: found.strs[:0], values: found.values[:0], sketches: found.sketches[:0]}
			buffers.Put(found)
		}
	})
	repeated := newRepeatedSketches(sketches)
	defer repeated.free()
	kept := 0
	for k, sketch := range sketches {
		if repeated.has(sketch) {
			strs[kept], valueOf[kept] = strs[k], valueOf[k]
			kept++
		}
	}
	return strs[:kept], valueOf[:kept]
}

// stringsFound are the Strings one chunk of objects holds: how many, and
// those with a recorded value array, with their arrays and sketches.
type stringsFound struct {
	count        int64
	strs, values []model.ObjectIndex
	sketches     []uint64
}

// firstHolders marks, in a bit table from model/bigmem, each k whose
// array valueOf[k] no String before it holds: counting those Strings
// counts distinct arrays. (Strings may share one array: JDK 8's new
// String(String); Strings that share one share its value too.)
func firstHolders(h *model.Heap, valueOf []model.ObjectIndex) []uint64 {
	seen := bigmem.Make[uint64]((h.NumObjects() + 63) / 64)
	defer bigmem.Free(seen)
	firsts := bigmem.Make[uint64]((len(valueOf) + 63) / 64)
	for k, a := range valueOf {
		if seen[a>>6]&(1<<(a&63)) == 0 {
			seen[a>>6] |= 1 << (a & 63)
			firsts[k>>6] |= 1 << (k & 63)
		}
	}
	return firsts
}

// groupByValue reads the Strings strs and their arrays valueOf from the
// dump and returns the table of their values, with how many Strings
// hold each, the first of them, and how many of them are first holders
// of their array (firsts: firstHolders).
func groupByValue(h *model.Heap, strs, valueOf []model.ObjectIndex, firsts []uint64) (*valueTable, error) {
	seed1, seed2 := maphash.MakeSeed(), maphash.MakeSeed()
	digest := func(data []byte) [2]uint64 { return [2]uint64{maphash.Bytes(seed1, data), maphash.Bytes(seed2, data)} }
	tables := make([]*valueTable, parallel.Workers())
	for w := range tables {
		tables[w] = newValueTable()
	}
	err := model.EachStringDigest(h, strs, valueOf, len(tables), digest, func(w, k int, v model.StringDigest) error {
		arrays := uint32(firsts[k>>6] >> (k & 63) & 1)
		tables[w].queue(&v, uint32(k), arrays)
		return nil
	})
	for _, t := range tables {
		t.flush()
	}
	for _, t := range tables[1:] {
		if err == nil {
			tables[0].merge(t)
		}
		t.free()
	}
	if err != nil {
		tables[0].free()
		return nil, err
	}
	return tables[0], nil
}
