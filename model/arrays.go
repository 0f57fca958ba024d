package model

import (
	"bytes"
	"hash/crc32"
	"math/bits"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

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
	n := len(order)
	words := (n + 63) / 64
	isArray := bigmem.Make[uint64](words)
	// Ranges of whole words side by side: each marks its arrays, then,
	// once the arrays before each range are counted, gathers their
	// lengths.
	workers := workersFor(n)
	before := make([]int, workers+1)
	forRanges(words, workers, func(k, lo, hi int) {
		count := 0
		for i := lo * 64; i < min(hi*64, n); i++ {
			if c := classOf[i]; c != NoClass && arrayClass[c] {
				isArray[i>>6] |= 1 << (i & 63)
				count++
			}
		}
		before[k+1] = count
	})
	for k := range workers {
		before[k+1] += before[k]
	}
	lengths := bigmem.Make[uint32](before[workers])
	forRanges(words, workers, func(k, lo, hi int) {
		r := before[k]
		for i := lo * 64; i < min(hi*64, n); i++ {
			if isArray[i>>6]&(1<<(i&63)) != 0 {
				lengths[r] = src.at(int(order[i]))
				r++
			}
		}
	})
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

// position returns the position of array i in lengths, and false when
// object i is no array.
func (a *arrayLengths) position(i int) (int, bool) {
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

// before returns how many arrays come before word k of isArray (object
// 64*k).
func (a *arrayLengths) before(k int) int {
	if k >= len(a.isArray) {
		return len(a.lengths)
	}
	r := int(a.rank[k/rankWords])
	for j := k &^ (rankWords - 1); j < k; j++ {
		r += bits.OnesCount64(a.isArray[j])
	}
	return r
}

// at returns the length of object i: its element count for an array, 0
// for any other object.
func (a *arrayLengths) at(i int) uint32 {
	if r, ok := a.position(i); ok {
		return a.lengths[r]
	}
	return 0
}

// set changes the length of array i; other objects keep having none.
func (a *arrayLengths) set(i int, n uint32) {
	if r, ok := a.position(i); ok {
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

// Array contents: what the load learnt of each array's elements, kept
// beside its length (the same position in lengths) so that analyses that
// look for equal or wasteful arrays (strings, collections) need not read
// the dump again for every array.
const (
	// contentRecorded: the dump recorded every element of the array.
	contentRecorded = 1 << 32
	// contentUniform: the array has elements and all of them are equal
	// (for an object array: all null).
	contentUniform = 1 << 33
)

// arrayContents is the digest and flags of each array, by position in
// arrayLengths.lengths.
type arrayContents struct {
	digests  []uint32 // CRC-32C of a primitive array's element bytes
	recorded []uint64 // bit r: contentRecorded of array r
	uniform  []uint64 // bit r: contentUniform of array r
}

// castagnoli is the CRC-32C table, which the processor computes where it
// can.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// elementDigest follows the element bytes of one array as a dump hands
// them over in chunks: their CRC-32C, whether all elements are equal,
// and how many bytes came.
type elementDigest struct {
	crc     uint32
	size    int     // bytes per element
	first   [8]byte // the first element
	n       int64   // bytes seen
	uniform bool
}

// reset starts the digest of an array of elements size bytes long (1
// to 8).
func (d *elementDigest) reset(size int) {
	*d = elementDigest{size: min(max(size, 1), 8), uniform: true}
}

// write adds the next chunk of element bytes.
func (d *elementDigest) write(chunk []byte) {
	d.crc = crc32.Update(d.crc, castagnoli, chunk)
	for len(chunk) > 0 && d.uniform {
		size := int64(d.size)
		switch p := d.n % size; {
		case d.n < size:
			k := copy(d.first[d.n:size], chunk)
			d.n += int64(k)
			chunk = chunk[k:]
		case p != 0 || int64(len(chunk)) < size:
			// Part of an element: compare it with the same part of the
			// first.
			k := min(size-p, int64(len(chunk)))
			d.uniform = bytes.Equal(chunk[:k], d.first[p:p+k])
			d.n += k
			chunk = chunk[k:]
		default:
			// Whole elements: the first equals the array's first, and
			// each equals the one before it.
			m := int64(len(chunk)) / size * size
			d.uniform = bytes.Equal(chunk[:size], d.first[:size]) && bytes.Equal(chunk[size:m], chunk[:m-size])
			d.n += m
			chunk = chunk[m:]
		}
	}
	if !d.uniform {
		d.n += int64(len(chunk))
	}
}

// info is what the digest says of an array of length elements: its CRC
// and contentRecorded when every element came, contentUniform when they
// are all equal.
func (d *elementDigest) info(length uint32) uint64 {
	if d.n != int64(length)*int64(d.size) {
		return 0
	}
	info := uint64(d.crc) | contentRecorded
	if d.uniform && length > 0 {
		info |= contentUniform
	}
	return info
}

// gatherArrayContents returns the contents of the arrays of a, in its
// order: info holds one entry per array arrival, arrivals marks the
// arrivals that are arrays (duplicates left out of order included), and
// order maps each object's number to its arrival.
func gatherArrayContents(a *arrayLengths, info *chunkList[uint64], arrivals []uint64, order []uint32) arrayContents {
	rank, _ := rankArrays(arrivals)
	byArrival := arrayLengths{isArray: arrivals, rank: rank}
	c := arrayContents{
		digests:  bigmem.Make[uint32](len(a.lengths)),
		recorded: bigmem.Make[uint64]((len(a.lengths) + 63) / 64),
		uniform:  bigmem.Make[uint64]((len(a.lengths) + 63) / 64),
	}
	// Ranges of whole words of objects side by side; two ranges may set
	// bits of one word of recorded and uniform, so each range sets a
	// word's bits at once, atomically, as it leaves it.
	n := len(order)
	forRanges(len(a.isArray), workersFor(n), func(_, lo, hi int) {
		r := a.before(lo)
		word, recorded, uniform := r>>6, uint64(0), uint64(0)
		flush := func() {
			if recorded != 0 {
				atomic.OrUint64(&c.recorded[word], recorded)
			}
			if uniform != 0 {
				atomic.OrUint64(&c.uniform[word], uniform)
			}
			recorded, uniform = 0, 0
		}
		for i := lo * 64; i < min(hi*64, n); i++ {
			if a.isArray[i>>6]&(1<<(i&63)) == 0 {
				continue
			}
			if r>>6 != word {
				flush()
				word = r >> 6
			}
			arrival := order[i]
			if int(arrival>>6) < len(arrivals) {
				if k, ok := byArrival.position(int(arrival)); ok {
					v := info.at(k)
					c.digests[r] = uint32(v)
					if v&contentRecorded != 0 {
						recorded |= 1 << (r & 63)
					}
					if v&contentUniform != 0 {
						uniform |= 1 << (r & 63)
					}
				}
			}
			r++
		}
		flush()
	})
	return c
}

// check reports whether contents read from an index fit the n arrays of
// the heap.
func (c *arrayContents) check(n int) error {
	words := (n + 63) / 64
	if len(c.digests) != n || len(c.recorded) != words || len(c.uniform) != words {
		return indexError("array contents of %d, %d and %d words for %d arrays", len(c.digests), len(c.recorded), len(c.uniform), n)
	}
	if n%64 != 0 && (c.recorded[n/64]>>(n%64) != 0 || c.uniform[n/64]>>(n%64) != 0) {
		return indexError("array content bits set past the last of %d arrays", n)
	}
	return nil
}

// forget drops what is known of the elements of array i, whose length
// changed after they were read.
func (c *arrayContents) forget(a *arrayLengths, i int) {
	if r, ok := a.position(i); ok && r < len(c.digests) {
		c.digests[r] = 0
		c.recorded[r>>6] &^= 1 << (r & 63)
		c.uniform[r>>6] &^= 1 << (r & 63)
	}
}
