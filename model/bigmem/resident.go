package bigmem

import (
	"sync"
	"sync/atomic"
	"time"
)

// The pages of a mapped table that the process has touched count in its
// resident memory (and its peak, VmHWM) until the kernel needs them
// elsewhere, which on a machine with memory to spare is never: a build
// that maps its tables would still grow to their whole size. BoundResident
// keeps the process within its budget by dropping those pages from the
// process whenever it holds too many of them. The data stays in the page
// cache and the scratch files; a page read again is mapped back in by
// the kernel without a read from the disk while the page cache keeps it.

// trimEvery is how often BoundResident looks at the resident memory.
const trimEvery = 100 * time.Millisecond

// trims counts the times the mapped tables' pages were dropped.
var trims atomic.Int64

// BoundResident checks the process's resident memory every trimEvery
// until stop is called, and drops the resident pages of every mapped
// table when the process holds more than limit bytes and the mapped
// tables more than an eighth of it (less is not worth their coming back).
// Where the system does not report resident memory it does nothing.
func BoundResident(limit int64) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	if _, _, ok := residentBytes(); !ok {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(trimEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if total, shared, _ := residentBytes(); total > limit && shared > limit/8 {
					DropResident()
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// DropResident drops the resident pages of every mapped table from the
// process; their contents stay as they are.
func DropResident() {
	mu.Lock()
	defer mu.Unlock()
	for _, m := range mapped {
		// A table whose pages stay is only a table that costs more
		// memory: nothing to do but go on.
		_ = dropPages(m.data)
	}
	trims.Add(1)
}

// Trims returns how many times the mapped tables' pages were dropped.
func Trims() int64 { return trims.Load() }
