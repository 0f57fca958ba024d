package model

import "math/bits"

// arrayLengths holds the lengths of the array objects alone, in object
// order, with a bit per object that says whether it is an array. The
// length of array i comes after those of the arrays before it: their
// count is the count before i's block of 512 objects (rank) plus the set
// bits before i in that block, at most 8 words that share one cache line.
// A quarter of a JVM heap's objects are arrays, so this takes about 1.1
// bytes per object where a length per object takes 4.
type arrayLengths struct {
	isArray []uint64 // bit i%64 of word i/64: object i is an array
	rank    []uint32 // arrays before each block of rankWords words
	lengths []uint32 // each array's length
}

// rankWords is how many words of isArray one rank entry covers: 512
// objects, 64 bytes.
const rankWords = 8

// gatherArrayLengths returns the lengths in src, in the given order, of
// the objects whose class in classOf (the same order) is an array class;
// other objects have no length (instances and class objects are added
// with length 0).
func gatherArrayLengths(src *chunkList[uint32], order []uint32, classOf []ClassIndex, classes []Class) arrayLengths {
	arrayClass := make([]bool, len(classes))
	for c := range classes {
		arrayClass[c] = classes[c].IsArray()
	}
	isArray := make([]uint64, (len(order)+63)/64)
	count := 0
	for i, c := range classOf {
		if c != NoClass && arrayClass[c] {
			isArray[i>>6] |= 1 << (i & 63)
			count++
		}
	}
	lengths := make([]uint32, 0, count)
	for i, a := range order {
		if isArray[i>>6]&(1<<(i&63)) != 0 {
			lengths = append(lengths, src.at(int(a)))
		}
	}
	rank, _ := rankArrays(isArray)
	return arrayLengths{isArray: isArray, rank: rank, lengths: lengths}
}

// rankArrays returns the rank directory of isArray and the number of bits
// set in it.
func rankArrays(isArray []uint64) ([]uint32, int) {
	rank := make([]uint32, (len(isArray)+rankWords-1)/rankWords)
	count := 0
	for k, w := range isArray {
		if k%rankWords == 0 {
			rank[k/rankWords] = uint32(count)
		}
		count += bits.OnesCount64(w)
	}
	return rank, count
}

// index returns the position of array i in lengths, and false when object
// i is no array.
func (a *arrayLengths) index(i int) (int, bool) {
	k := i >> 6
	bit := uint64(1) << (i & 63)
	if a.isArray[k]&bit == 0 {
		return 0, false
	}
	r := int(a.rank[k/rankWords]) + bits.OnesCount64(a.isArray[k]&(bit-1))
	for j := k &^ (rankWords - 1); j < k; j++ {
		r += bits.OnesCount64(a.isArray[j])
	}
	return r, true
}

// at returns the length of object i: its element count for an array, 0
// for any other object.
func (a *arrayLengths) at(i int) uint32 {
	if r, ok := a.index(i); ok {
		return a.lengths[r]
	}
	return 0
}

// set changes the length of array i; other objects keep having none.
func (a *arrayLengths) set(i int, n uint32) {
	if r, ok := a.index(i); ok {
		a.lengths[r] = n
	}
}

// check reports whether the tables of n objects read from an index agree:
// a bit per object, none past the last, as many lengths as bits set. It
// sets the rank directory, which the index does not keep.
func (a *arrayLengths) check(n int) error {
	if len(a.isArray) != (n+63)/64 {
		return indexError("%d words of array bits for %d objects", len(a.isArray), n)
	}
	if n%64 != 0 && a.isArray[n/64]>>(n%64) != 0 {
		return indexError("array bits set past the last of %d objects", n)
	}
	rank, count := rankArrays(a.isArray)
	if count != len(a.lengths) {
		return indexError("%d arrays but %d array lengths", count, len(a.lengths))
	}
	a.rank = rank
	return nil
}
