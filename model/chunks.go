package model

// chunkBits sets the chunk size of chunkList: 1 Mi elements.
const chunkBits = 20

// chunkList is an append-only list stored in chunks of 1<<chunkBits
// elements: unlike a slice it never copies what it holds to grow, and
// never holds more than one partly used chunk beyond its length — what
// keeps memory flat while a multi-gigabyte dump streams in. Only the
// first chunk grows as a slice does, so that a small dump takes little.
type chunkList[T any] struct {
	chunks [][]T // each chunk's length is its used part
	n      int
}

// firstChunk is the capacity the first chunk starts with.
const firstChunk = 1 << 10

func (c *chunkList[T]) append(v T) {
	switch {
	case len(c.chunks) == 0:
		c.chunks = append(c.chunks, make([]T, 0, firstChunk))
	case c.n&(1<<chunkBits-1) == 0:
		c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *chunkList[T]) at(i int) T { return c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunkList[T]) len() int { return c.n }

// each calls fn with every chunk's used part, in order.
func (c *chunkList[T]) each(fn func(chunk []T)) {
	for _, ch := range c.chunks {
		fn(ch)
	}
}
