// Package parallel holds the helpers of the analyses' parallel passes over
// every object: chunked work on every processor and atomic minimums.
package parallel

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// ObjectChunk is how many objects a goroutine of a parallel pass over all
// objects takes at a time: enough to make handing out chunks cheap, few
// enough that goroutines finish together. Tests lower it so that small
// heaps take the parallel paths.
var ObjectChunk = 1 << 15

// Workers is how many goroutines a parallel pass runs at most: one per
// processor Go may use.
func Workers() int { return runtime.GOMAXPROCS(0) }

// ForChunks calls fn for every chunk [lo, hi) of [0, n), chunk long but
// for the last, on up to Workers() goroutines, and returns once all
// calls are done. worker numbers the goroutine, below Workers(), so
// that fn can add up its results in a slot of its own. Goroutines take
// the next chunk when they are done with one, so that a slow chunk does
// not hold the others up.
func ForChunks(n, chunk int, fn func(worker, lo, hi int)) {
	workers := min(Workers(), (n+chunk-1)/chunk)
	if workers <= 1 {
		for lo := 0; lo < n; lo += chunk {
			fn(0, lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := range workers {
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(1)-1) * chunk
				if lo >= n {
					return
				}
				fn(w, lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// ForChunksInOrder is ForChunks for passes whose chunks add to one
// result in chunk order: fn works on chunk [lo, hi) and returns what adds
// its part, which runs once every chunk before has added its own, one at
// a time (the first chunk's first). A chunk done before its turn waits
// with what it holds, while its goroutine goes on to the next chunk.
func ForChunksInOrder(n, chunk int, fn func(lo, hi int) (add func())) {
	var mu sync.Mutex
	waiting := map[int]func(){} // chunk number → its add, done but not yet added
	turn := 0
	ForChunks(n, chunk, func(_, lo, hi int) {
		add := fn(lo, hi)
		mu.Lock()
		defer mu.Unlock()
		waiting[lo/chunk] = add
		for next, ok := waiting[turn]; ok; next, ok = waiting[turn] {
			delete(waiting, turn)
			next()
			turn++
		}
	})
}

// LowerTo lowers *p to v, atomically, when v is below it, and reports
// whether it did.
func LowerTo(p *uint32, v uint32) bool {
	for {
		old := atomic.LoadUint32(p)
		if v >= old {
			return false
		}
		if atomic.CompareAndSwapUint32(p, old, v) {
			return true
		}
	}
}

// RepeatedValues returns the values that vals holds more than once,
// each once, in no set order; it reorders vals, which it sorts in place to find them (the
// caller's copy of the values serves as their work array). The values
// are spread into 256 buckets by their top byte (for hashes: evenly),
// and the buckets, small enough for the processor's caches, are sorted
// on Workers() goroutines.
func RepeatedValues(vals []uint64) []uint64 {
	bucket := func(v uint64) int { return int(v >> 56) }
	var start [257]int
	for _, v := range vals {
		start[bucket(v)+1]++
	}
	for b := 1; b <= 256; b++ {
		start[b] += start[b-1]
	}
	// Each value not in its bucket is swapped into the next free place of
	// its own, and the value found there moves on the same way, until one
	// belongs where the first was taken from.
	next := start
	for b := range 256 {
		for next[b] < start[b+1] {
			v := vals[next[b]]
			for d := bucket(v); d != b; d = bucket(v) {
				vals[next[d]], v = v, vals[next[d]]
				next[d]++
			}
			vals[next[b]] = v
			next[b]++
		}
	}
	found := make([][]uint64, Workers())
	ForChunks(256, 1, func(worker, b, _ int) {
		bucket := vals[start[b]:start[b+1]]
		slices.Sort(bucket)
		for k := 1; k < len(bucket); k++ {
			if bucket[k] == bucket[k-1] && (k == 1 || bucket[k] != bucket[k-2]) {
				found[worker] = append(found[worker], bucket[k])
			}
		}
	})
	return slices.Concat(found...)
}
