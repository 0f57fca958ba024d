package model

import (
	"slices"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

// chunkBits sets the chunk size of chunkList: 1 Mi elements.
const chunkBits = 20

// chunkList is an append-only list stored in chunks of 1<<chunkBits
// elements: unlike a slice it never copies what it holds to grow, and
// never holds more than one partly used chunk beyond its length — what
// keeps memory flat while a multi-gigabyte dump streams in. Only the
// first chunk grows as a slice does, so that a small dump takes little.
type chunkList[T bigmem.Number] struct {
	// chunks are kept at their full length; the last one is tail, of
	// which the part before n is used.
	chunks [][]T
	// tail is the chunk being filled and tailStart the list position of its
	// first element: append then costs one comparison and one store,
	// where appending to the last chunk's slice would rewrite its header.
	tail      []T
	tailStart int
	n         int
}

// firstChunk is the capacity the first chunk starts with.
const firstChunk = 1 << 10

func (c *chunkList[T]) append(v T) {
	k := c.n - c.tailStart
	if k == len(c.tail) {
		c.grow()
		k = c.n - c.tailStart
	}
	c.tail[k] = v
	c.n++
}

// appendSlice appends every value of vs, a chunk's worth at a time.
func (c *chunkList[T]) appendSlice(vs []T) {
	for len(vs) > 0 {
		m := copy(c.room(), vs)
		c.n += m
		vs = vs[m:]
	}
}

// room returns the unused part of the tail, after making one when the
// tail is full.
func (c *chunkList[T]) room() []T {
	if c.n-c.tailStart == len(c.tail) {
		c.grow()
	}
	return c.tail[c.n-c.tailStart:]
}

// appendShifted appends every value of vs plus delta (wrapping as uint32
// does), a chunk's room at a time.
func appendShifted(c *chunkList[uint32], vs []uint32, delta uint32) {
	for len(vs) > 0 {
		room := c.room()
		m := min(len(room), len(vs))
		for i, v := range vs[:m] {
			room[i] = v + delta
		}
		c.n += m
		vs = vs[m:]
	}
}

// grow makes room for one more element once the tail is full: the first
// chunk doubles until it has a whole chunk's size, then a chunk follows.
func (c *chunkList[T]) grow() {
	switch {
	case len(c.chunks) == 0:
		c.tail = make([]T, firstChunk)
		c.chunks = append(c.chunks, c.tail)
	case len(c.tail) < 1<<chunkBits:
		grown := make([]T, 2*len(c.tail))
		copy(grown, c.tail)
		c.tail, c.chunks[0] = grown, grown
	default:
		c.tailStart += len(c.tail)
		c.tail = bigmem.Make[T](1 << chunkBits)
		c.chunks = append(c.chunks, c.tail)
	}
}

// free releases the chunks (bigmem.Free) and empties the list.
func (c *chunkList[T]) free() {
	for _, ch := range c.chunks {
		bigmem.Free(ch)
	}
	*c = chunkList[T]{}
}

func (c *chunkList[T]) at(i int) T { return c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

// copyOut copies the values at from, from+1, ... into dst, a chunk's part
// at a time.
func (c *chunkList[T]) copyOut(dst []T, from int) {
	for len(dst) > 0 {
		k := copy(dst, c.chunks[from>>chunkBits][from&(1<<chunkBits-1):])
		dst, from = dst[k:], from+k
	}
}

func (c *chunkList[T]) len() int { return c.n }

// each calls fn with every chunk's used part, in order.
func (c *chunkList[T]) each(fn func(chunk []T)) {
	for k, ch := range c.chunks {
		fn(ch[:min(len(ch), c.n-k<<chunkBits)])
	}
}

// splitList is an append-only list of 8-byte values held in 4 bytes
// each, as splitTable holds a table: the low 32 bits in a chunkList, the
// high 32 bits once per run of consecutive values that share them. The
// ids and record offsets of a dump's objects, in the order they arrive,
// make a handful of runs (an address space or a file of a few
// gigabytes); a list whose high bits change at every value takes 16
// bytes a value.
type splitList[T uint64 | int64] struct {
	low      chunkList[uint32]
	runStart []int    // the first position of each run: 0, then ascending
	runHigh  []uint32 // the high 32 bits of each run's values
}

func (l *splitList[T]) append(v T) {
	l.startRun(l.low.len(), uint32(uint64(v)>>32))
	l.low.append(uint32(v))
}

// appendSlice appends every value of vs: a run of values that share
// their high bits at a time, its low bits a chunk's room at a time.
func (l *splitList[T]) appendSlice(vs []T) {
	for len(vs) > 0 {
		high := uint32(uint64(vs[0]) >> 32)
		n := 1
		for n < len(vs) && uint32(uint64(vs[n])>>32) == high {
			n++
		}
		l.startRun(l.low.len(), high)
		for run := vs[:n]; len(run) > 0; {
			room := l.low.room()
			m := min(len(room), len(run))
			for i, v := range run[:m] {
				room[i] = uint32(v)
			}
			l.low.n += m
			run = run[m:]
		}
		vs = vs[n:]
	}
}

// startRun starts a run of high bits high at position i, unless the last
// run has them.
func (l *splitList[T]) startRun(i int, high uint32) {
	if k := len(l.runHigh); k == 0 || l.runHigh[k-1] != high {
		l.runStart = append(l.runStart, i)
		l.runHigh = append(l.runHigh, high)
	}
}

// at returns value i; its run is found by binary search.
func (l *splitList[T]) at(i int) T {
	r := len(l.runStart) - 1
	if r > 0 {
		lo, hi := 0, r+1
		for hi-lo > 1 {
			m := int(uint(lo+hi) >> 1)
			if l.runStart[m] <= i {
				lo = m
			} else {
				hi = m
			}
		}
		r = lo
	}
	return T(uint64(l.runHigh[r])<<32 | uint64(l.low.at(i)))
}

func (l *splitList[T]) len() int { return l.low.len() }

// eachPart calls fn with the values of l at positions [lo, hi) in order,
// in parts that share their high bits and lie in one chunk: the part's
// first position, its low bits and its high bits.
func (l *splitList[T]) eachPart(lo, hi int, fn func(at int, low []uint32, high uint32)) {
	r, _ := slices.BinarySearch(l.runStart, lo+1)
	for r--; lo < hi; r++ {
		end := hi
		if r+1 < len(l.runStart) {
			end = min(end, l.runStart[r+1])
		}
		for lo < end {
			chunk := l.low.chunks[lo>>chunkBits][lo&(1<<chunkBits-1):]
			part := chunk[:min(len(chunk), end-lo)]
			fn(lo, part, l.runHigh[r])
			lo += len(part)
		}
	}
}

// copyOut sets entries at, at+1, ... of t to the n values of l from
// position from on, a part of eachPart at a time: its low bits copied,
// its high bits starting a run of t where they change.
func (l *splitList[T]) copyOut(t *splitTable, at, from, n int) {
	l.eachPart(from, from+n, func(pos int, low []uint32, high uint32) {
		t.startRun(at+pos-from, high)
		copy(t.low[at+pos-from:], low)
	})
}

// free releases the list's chunks and empties it.
func (l *splitList[T]) free() {
	l.low.free()
	*l = splitList[T]{}
}
