package analysis

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// objectChunk is how many objects a goroutine of a parallel pass over all
// objects takes at a time: enough to make handing out chunks cheap, few
// enough that goroutines finish together.
var objectChunk = 1 << 15

// parallelism is how many goroutines a parallel pass runs at most: one per
// processor Go may use.
func parallelism() int { return runtime.GOMAXPROCS(0) }

// forChunks calls fn for every chunk [lo, hi) of [0, n), chunk long but
// for the last, on up to parallelism() goroutines, and returns once all
// calls are done. worker numbers the goroutine, below parallelism(), so
// that fn can add up its results in a slot of its own. Goroutines take
// the next chunk when they are done with one, so that a slow chunk does
// not hold the others up.
func forChunks(n, chunk int, fn func(worker, lo, hi int)) {
	workers := min(parallelism(), (n+chunk-1)/chunk)
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

// lowerTo lowers *p to v, atomically, when v is below it, and reports
// whether it did.
func lowerTo(p *uint32, v uint32) bool {
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
