package graph

import (
	"fmt"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// The checks of the trees read from an index (CheckIndexed) run on every
// core, over chunks of objects taken in order; a fault is the one the
// first chunk that has one finds first, which is the one a single pass in
// object order finds.

// firstFault keeps, of the faults the chunks of a parallel check find,
// the one of the lowest chunk.
type firstFault struct {
	chunk atomic.Int64
	errs  []error
}

func newFirstFault(n int) *firstFault {
	f := &firstFault{errs: make([]error, (n+parallel.ObjectChunk-1)/parallel.ObjectChunk)}
	f.chunk.Store(int64(len(f.errs)))
	return f
}

// set notes err as the fault of the chunk starting at object lo.
func (f *firstFault) set(lo int, err error) {
	k := lo / parallel.ObjectChunk
	f.errs[k] = err
	for {
		cur := f.chunk.Load()
		if int64(k) >= cur || f.chunk.CompareAndSwap(cur, int64(k)) {
			return
		}
	}
}

// after reports whether a chunk before the one starting at lo has a fault
// already, so that this one need not be checked.
func (f *firstFault) after(lo int) bool { return f.chunk.Load() < int64(lo/parallel.ObjectChunk) }

// err is the fault of the lowest chunk, nil when none has one.
func (f *firstFault) err() error {
	if k := f.chunk.Load(); k < int64(len(f.errs)) {
		return f.errs[k]
	}
	return nil
}

// checkPathTree checks that every chain of parents in up ends at a root or
// at an object no root reaches (see PathTree.CheckIndexed). A chain is
// climbed until it meets an object whose chain is known to end, and each
// object's chain is known once: one bit per object for that, shared by the
// goroutines, and one bit per object and goroutine for the objects on the
// chains it climbed, which are all known to end once a climb is over, so
// that an object met again that is not known to end is met on a cycle.
func checkPathTree(up []uint32) error {
	n := uint32(len(up))
	words := (n + 63) / 64
	done := make([]uint64, words)
	onWalk := make([][]uint64, parallel.Workers())
	fault := newFirstFault(int(n))
	stopped := make([]bool, parallel.Workers())
	isDone := func(i uint32) bool { return atomic.LoadUint64(&done[i/64])&(1<<(i%64)) != 0 }
	parallel.ForChunks(int(n), parallel.ObjectChunk, func(w, lo, hi int) {
		if stopped[w] || fault.after(lo) {
			return
		}
		if onWalk[w] == nil {
			onWalk[w] = make([]uint64, words)
		}
		mine := onWalk[w]
		for start := uint32(lo); start < uint32(hi); start++ {
			i := start
			for i < n && !isDone(i) {
				if mine[i/64]&(1<<(i%64)) != 0 {
					fault.set(lo, fmt.Errorf("%w: the shortest path tree has a cycle through object %d", store.ErrCorrupt, i))
					stopped[w] = true
					return
				}
				mine[i/64] |= 1 << (i % 64)
				i = up[i]
			}
			// Every object of the walk, up to where it stopped, is known
			// now: all are marked, even those another goroutine marks
			// meanwhile, so that none stays on this goroutine's walk
			// without being known (it would look like a cycle later).
			for j := start; j != i; j = up[j] {
				atomic.OrUint64(&done[j/64], 1<<(j%64))
			}
		}
	})
	return fault.err()
}

// checkRetention is Retention.CheckIndexed's pass over the objects.
func (r *Retention) checkRetention() error {
	n := len(r.idom)
	var unreached, top atomic.Int64
	fault := newFirstFault(n)
	parallel.ForChunks(n, parallel.ObjectChunk, func(_, lo, hi int) {
		if fault.after(lo) {
			return
		}
		var chunkUnreached, chunkTop int64
		for i := lo; i < hi; i++ {
			d, count := r.idom[i], r.retainedCount[i]
			var err error
			switch {
			case d == NotReached:
				chunkUnreached++
				if count != 0 || r.retainedBytes.small[i] != 0 {
					err = fmt.Errorf("%w: unreachable object %d retains %d objects", store.ErrCorrupt, i, count)
				}
			case d == model.NoObject:
				chunkTop += int64(count)
			case r.retainedCount[d] <= count:
				err = fmt.Errorf("%w: object %d's dominator %d retains %d objects, it retains %d", store.ErrCorrupt, i, d, r.retainedCount[d], count)
			}
			if err == nil && d != NotReached && count == 0 {
				err = fmt.Errorf("%w: reachable object %d retains no object, not even itself", store.ErrCorrupt, i)
			}
			if err != nil {
				fault.set(lo, err)
				return
			}
		}
		unreached.Add(chunkUnreached)
		top.Add(chunkTop)
	})
	if err := fault.err(); err != nil {
		return err
	}
	if unreached.Load() != r.Unreachable || top.Load() != r.reachedObjects {
		return fmt.Errorf("%w: %d objects unreachable and %d retained under the root, the index says %d and %d",
			store.ErrCorrupt, unreached.Load(), top.Load(), r.Unreachable, r.reachedObjects)
	}
	return nil
}
