// Package parallel holds the helpers of the analyses' parallel passes over
// every object: chunked work on every processor and atomic minimums.
package parallel

import (
	"runtime"
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
