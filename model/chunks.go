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
	i := c.n & (1<<chunkBits - 1)
	if i == 0 {
		c.chunks = append(c.chunks, make([]T, 1<<chunkBits))
	}
	c.chunks[len(c.chunks)-1][i] = v
	c.n++
}

func (c *chunkList[T]) at(i int) T { return c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunkList[T]) len() int { return c.n }

// each calls fn with every chunk's used part, in order.
func (c *chunkList[T]) each(fn func(chunk []T)) {
	for k, ch := range c.chunks {
		if k == len(c.chunks)-1 {
			ch = ch[:c.n-k<<chunkBits]
		}
		fn(ch)
	}
}
