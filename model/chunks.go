package model

// chunkBits sets the chunk size of chunkList: 1 Mi elements.
const chunkBits = 20

// chunkList is an append-only list stored in fixed-size chunks: unlike a
// slice it never copies what it holds to grow, and never holds more than
// one partly used chunk beyond its length — what keeps memory flat while a
// multi-gigabyte dump streams in.
type chunkList[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunkList[T]) append(v T) {
	k := c.n >> chunkBits
	if k == len(c.chunks) {
		c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
	}
	c.chunks[k] = append(c.chunks[k], v)
	c.n++
}

func (c *chunkList[T]) at(i int) T { return c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunkList[T]) len() int { return c.n }

// sorted reports whether the elements are in non-decreasing order.
func sortedChunks(c *chunkList[uint64]) bool {
	var prev uint64
	for k, ch := range c.chunks {
		for i, v := range ch {
			if (k > 0 || i > 0) && v < prev {
				return false
			}
			prev = v
		}
	}
	return true
}
