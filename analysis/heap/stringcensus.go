package heap

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
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
// whose value array another String's may equal; only those Strings and
// their arrays are read from the heap's dump (model.EachValues), and
// grouped by two independent 64-bit hashes of the array's type, length
// and bytes, and the String's coder (128 bits: two different values
// sharing them is not to be expected in any heap). It holds about 40
// bytes per such String at once.
func CountStrings(h *model.Heap, heaps model.HeapSelection) (StringCensus, error) {
	var c StringCensus
	class := classByName(h, "java.lang.String")
	if class == model.NoClass {
		return c, nil
	}
	strs, valueOf := stringCandidates(h, class, heaps, &c.Strings)
	shared := sharedArrays(valueOf)
	keys, buckets, err := hashStrings(h, strs, valueOf)
	if err != nil {
		return c, err
	}
	c.Groups = groupStrings(keys, buckets, strs, valueOf, shared)
	// The hashes' seeds change at every run; the order by first String
	// does not, so that an index is built the same every time.
	slices.SortFunc(c.Groups, func(x, y StringGroup) int { return cmp.Compare(x.First, y.First) })
	return c, nil
}

// stringCandidates counts the Strings of the heaps selected into count
// and returns those whose value another String may hold, with their value
// arrays, in object order. Each String's value array is its only
// reference. Two Strings can hold one value only if their arrays have the
// same digest and length: that pair, as one number, is each String's
// sketch. The objects are looked at in chunks on every processor, each
// chunk's Strings appended in chunk order.
func stringCandidates(h *model.Heap, class model.ClassIndex, heaps model.HeapSelection, count *int64) (strs, valueOf []model.ObjectIndex) {
	expect := min(int(h.Classes[class].Instances), h.NumObjects())
	strs, valueOf = make([]model.ObjectIndex, 0, expect), make([]model.ObjectIndex, 0, expect)
	sketches := make([]uint64, 0, expect)
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
				found.strs = append(found.strs, s)
				found.valueOf = append(found.valueOf, refs[0])
				found.sketches = append(found.sketches, uint64(digest)<<32|uint64(h.ArrayLength(refs[0])))
			}
		}
		return func() {
			*count += found.count
			strs = append(strs, found.strs...)
			valueOf = append(valueOf, found.valueOf...)
			sketches = append(sketches, found.sketches...)
			*found = stringsFound{strs: found.strs[:0], valueOf: found.valueOf[:0], sketches: found.sketches[:0]}
			buffers.Put(found)
		}
	})
	shared := parallel.RepeatedValues(sketches)
	candidates := strs[:0]
	candidateArrays := valueOf[:0]
	for k, s := range strs {
		if _, ok := shared[sketches[k]]; ok {
			candidates = append(candidates, s)
			candidateArrays = append(candidateArrays, valueOf[k])
		}
	}
	return slices.Clip(candidates), slices.Clip(candidateArrays)
}

// stringsFound are the Strings one chunk of objects holds: how many, and
// those with a recorded value array, with their arrays and sketches.
type stringsFound struct {
	count         int64
	strs, valueOf []model.ObjectIndex
	sketches      []uint64
}

// stringKey stands for the value of String strs[k]: two independent
// hashes of its array's element type, length and bytes, and its coder.
type stringKey struct {
	hash, hash2 uint64
	k           uint32
	coder       uint8
}

// compareValues orders keys by value. (It compares a field only when
// the ones before are equal: the sort calls it hundreds of millions of
// times.)
func compareValues(x, y stringKey) int {
	if x.hash != y.hash {
		return cmp.Compare(x.hash, y.hash)
	}
	if x.hash2 != y.hash2 {
		return cmp.Compare(x.hash2, y.hash2)
	}
	return cmp.Compare(x.coder, y.coder)
}

// valueBuckets is how many buckets sortByValue spreads keys into, by the
// top bits of their first hash.
const valueBuckets = 256

// sortByValue sorts keys by value on every processor and returns where
// each of its buckets starts (bucket b is keys[start[b]:start[b+1]]).
// The keys are first spread in place into valueBuckets buckets by the
// top byte of their first hash (evenly: it is a hash), so that keys of
// one value share a bucket; the buckets are then sorted at once.
func sortByValue(keys []stringKey) (start [valueBuckets + 1]int) {
	bucket := func(key stringKey) int { return int(key.hash >> 56) }
	for _, key := range keys {
		start[bucket(key)+1]++
	}
	for b := 1; b <= valueBuckets; b++ {
		start[b] += start[b-1]
	}
	// Each key not in its bucket is swapped into the next free place of
	// its own, and the key found there moves on the same way, until one
	// belongs where the first was taken from.
	next := start
	for b := range valueBuckets {
		for next[b] < start[b+1] {
			key := keys[next[b]]
			for d := bucket(key); d != b; d = bucket(key) {
				keys[next[d]], key = key, keys[next[d]]
				next[d]++
			}
			keys[next[b]] = key
			next[b]++
		}
	}
	parallel.ForChunks(valueBuckets, 1, func(_, b, _ int) {
		slices.SortFunc(keys[start[b]:start[b+1]], compareValues)
	})
	return start
}

// hashBatch is how many Strings hashStrings reads at a time (with their
// arrays): 2^20, a few dozen MiB of the reader's bookkeeping.
const hashBatch = 1 << 20

// hashStrings reads the Strings strs and their value arrays valueOf from
// the dump and returns the key of each String whose array was read,
// sorted by value (sortByValue, whose buckets it returns). An array that several Strings share (JDK 8's new
// String(String)) is read for each of them.
func hashStrings(h *model.Heap, strs, valueOf []model.ObjectIndex) ([]stringKey, [valueBuckets + 1]int, error) {
	seed1, seed2 := maphash.MakeSeed(), maphash.MakeSeed()
	n := len(strs)
	keys := make([]stringKey, n)
	// read marks the arrays read; each k is written by one call.
	read := make([]bool, n)
	// The Strings are read a batch at a time: what the reader holds per
	// object it reads (its place in the file, in order) then lasts for
	// one batch, not for all the Strings of the heap.
	var b censusBatch
	for lo := 0; lo < n; lo += hashBatch {
		hi := min(lo+hashBatch, n)
		b.order(strs[lo:hi], valueOf[lo:hi])
		err := model.EachValues(h, b.objs, func(k int, v *model.ObjectValues) error {
			j, isString := b.of(k)
			switch {
			case isString:
				keys[lo+j].coder = uint8(model.StringCoder(v))
			case v.Length >= 0 && v.HasElements():
				var prefix [5]byte
				prefix[0] = byte(v.Elem)
				binary.LittleEndian.PutUint32(prefix[1:], uint32(v.Length))
				key := &keys[lo+j]
				key.hash, key.hash2 = hashValue(seed1, prefix[:], v.Data), hashValue(seed2, prefix[:], v.Data)
				read[lo+j] = true
			}
			return nil
		})
		if err != nil {
			return nil, [valueBuckets + 1]int{}, err
		}
	}
	kept := keys[:0]
	for k, key := range keys {
		if read[k] {
			key.k = uint32(k)
			kept = append(kept, key)
		}
	}
	return kept, sortByValue(kept), nil
}

// censusBatch is a batch of Strings and their value arrays in object
// order, which in a dump is nearly always the order of their records: the
// reader then finds them in file order without sorting them.
type censusBatch struct {
	objs []model.ObjectIndex
	// from[k] is where objs[k] came from: String j as j, the array of
	// String j as -j-1.
	from   []int32
	arrays []uint64 // an array's object index << 32 | its String
}

// order sets the batch to the Strings strs (ascending) and their arrays
// valueOf, merged by object index.
func (b *censusBatch) order(strs, valueOf []model.ObjectIndex) {
	b.arrays = b.arrays[:0]
	for j, a := range valueOf {
		b.arrays = append(b.arrays, uint64(a)<<32|uint64(j))
	}
	slices.Sort(b.arrays) // nearly sorted: arrays mostly follow their Strings
	b.objs, b.from = b.objs[:0], b.from[:0]
	j := 0
	for _, x := range b.arrays {
		a := model.ObjectIndex(x >> 32)
		for ; j < len(strs) && strs[j] <= a; j++ {
			b.objs, b.from = append(b.objs, strs[j]), append(b.from, int32(j))
		}
		b.objs, b.from = append(b.objs, a), append(b.from, -int32(uint32(x))-1)
	}
	for ; j < len(strs); j++ {
		b.objs, b.from = append(b.objs, strs[j]), append(b.from, int32(j))
	}
}

// of says where objs[k] came from: String j's record or its array's.
func (b *censusBatch) of(k int) (j int, isString bool) {
	if f := b.from[k]; f >= 0 {
		return int(f), true
	}
	return int(-b.from[k] - 1), false
}

// hashValue hashes prefix and data as one string.
func hashValue(seed maphash.Seed, prefix, data []byte) uint64 {
	var m maphash.Hash
	m.SetSeed(seed)
	m.Write(prefix)
	m.Write(data)
	return m.Sum64()
}

// sharedArrays is the set of the arrays valueOf holds more than once:
// value arrays shared by several Strings, which are rare.
func sharedArrays(valueOf []model.ObjectIndex) map[uint64]struct{} {
	arrays := make([]uint64, len(valueOf))
	for i, a := range valueOf {
		arrays[i] = uint64(a)
	}
	return parallel.RepeatedValues(arrays)
}

// groupStrings returns the values the sorted keys show held by two
// Strings or more: count, distinct arrays (shared: the arrays several
// Strings hold) and first String of each, in no set order. The keys'
// buckets (sortByValue) are grouped at once: a value's keys share one.
func groupStrings(keys []stringKey, buckets [valueBuckets + 1]int, strs, valueOf []model.ObjectIndex, shared map[uint64]struct{}) []StringGroup {
	found := make([][]StringGroup, parallel.Workers())
	seen := make([]map[model.ObjectIndex]bool, parallel.Workers())
	parallel.ForChunks(valueBuckets, 1, func(w, b, _ int) {
		if seen[w] == nil {
			seen[w] = map[model.ObjectIndex]bool{}
		}
		found[w] = groupBucket(found[w], keys[buckets[b]:buckets[b+1]], strs, valueOf, shared, seen[w])
	})
	return slices.Concat(found...)
}

// groupBucket appends to groups the values that the sorted keys of one
// bucket show held by two Strings or more (see groupStrings); seen is
// its scratch set.
func groupBucket(groups []StringGroup, keys []stringKey, strs, valueOf []model.ObjectIndex, shared map[uint64]struct{}, seen map[model.ObjectIndex]bool) []StringGroup {
	for k := 0; k < len(keys); {
		j := k + 1
		for j < len(keys) && compareValues(keys[j], keys[k]) == 0 {
			j++
		}
		if j-k >= 2 {
			g := StringGroup{First: strs[keys[k].k], Count: int64(j - k), Array: valueOf[keys[k].k]}
			clear(seen)
			for _, key := range keys[k:j] {
				if strs[key.k] < g.First {
					// The first String's array: keys of one value come in
					// no set order.
					g.First, g.Array = strs[key.k], valueOf[key.k]
				}
				a := valueOf[key.k]
				if _, ok := shared[uint64(a)]; !ok {
					g.Arrays++
				} else if !seen[a] {
					seen[a] = true
					g.Arrays++
				}
			}
			groups = append(groups, g)
		}
		k = j
	}
	return groups
}
