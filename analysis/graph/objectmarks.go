package graph

import (
	"math/bits"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
)

// objectMarks sets the bits of objects in a bitset shared by goroutines
// that each mark objects in ascending order (a range of objects at a
// time): the bits of one word are gathered and set together, atomically,
// as ranges may share a word. flush sets what is gathered.
type objectMarks struct {
	bits []uint64
	word int
	mask uint64
}

// mark marks object i, which is no lower than those marked before.
func (m *objectMarks) mark(i int) {
	if i/64 != m.word {
		m.flush()
		m.word = i / 64
	}
	m.mask |= 1 << (i % 64)
}

// flush sets the bits gathered.
func (m *objectMarks) flush() {
	if m.mask != 0 {
		atomic.OrUint64(&m.bits[m.word], m.mask)
		m.mask = 0
	}
}

// forEachMarked calls fn for every object whose bit is set in marks, in
// ranges of objects on every processor; worker numbers the goroutine, as
// parallel.ForChunks does.
func forEachMarked(marks []uint64, fn func(worker, i int)) {
	parallel.ForChunks(len(marks), max(1, parallel.ObjectChunk/64), func(w, lo, hi int) {
		for k, word := range marks[lo:hi] {
			for ; word != 0; word &= word - 1 {
				fn(w, (lo+k)*64+bits.TrailingZeros64(word))
			}
		}
	})
}
