package model

import "github.com/hprofctl/hprofctl/model/bigmem"

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
		k := c.n - c.tailStart
		if k == len(c.tail) {
			c.grow()
			k = c.n - c.tailStart
		}
		m := copy(c.tail[k:], vs)
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

func (c *chunkList[T]) len() int { return c.n }

// each calls fn with every chunk's used part, in order.
func (c *chunkList[T]) each(fn func(chunk []T)) {
	for k, ch := range c.chunks {
		fn(ch[:min(len(ch), c.n-k<<chunkBits)])
	}
}
