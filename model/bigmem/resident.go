package bigmem

import (
	"runtime/debug"
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

// trimEvery is how often BoundResident looks at the resident memory. A
// depth-first search over mapped tables faults their pages back at
// gigabytes a second, so what the process holds past its limit grows
// with this interval; reading the resident memory costs some
// microseconds.
const trimEvery = 20 * time.Millisecond

// releaseEvery is the least time between two returns of the Go heap's free
// pages to the system (each costs a garbage collection).
const releaseEvery = time.Second

// trims counts the times the mapped tables' pages were dropped.
var trims atomic.Int64

// BoundResident checks the process's resident memory every trimEvery
// until stop is called, and relieves it (Relieve) when it holds more than
// limit bytes. Where the system does not report resident memory it does
// nothing.
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
				lastCheck.Store(time.Now().UnixNano())
				Relieve(limit)
			}
		}
	}()
	boundLimit.Store(limit)
	return func() {
		boundLimit.Store(0)
		close(done)
		wg.Wait()
	}
}

// boundLimit is the limit of the BoundResident running, 0 when none; and
// lastCheck is when the resident memory was last checked against it.
var boundLimit, lastCheck atomic.Int64

// paceSteps is how many steps of a loop a Pacer counts between two looks
// at the clock: some hundred microseconds of a depth-first search.
const paceSteps = 1 << 14

// A Pacer counts the steps of a long loop that touches mapped tables at
// random (a depth-first search, a pass over the references) and every
// paceSteps of them checks the resident memory against the running
// BoundResident's limit, when no check was made for trimEvery. The loop
// then bounds its own faults: with the cores busy, the checks of
// BoundResident's goroutine come late, while the loop faults pages back
// at gigabytes a second. The zero Pacer is ready; each goroutine needs its
// own.
type Pacer struct{ steps uint32 }

// Step counts one step.
func (p *Pacer) Step() {
	p.steps++
	if p.steps%paceSteps == 0 {
		pace()
	}
}

func pace() {
	limit := boundLimit.Load()
	if limit == 0 {
		return
	}
	now, last := time.Now().UnixNano(), lastCheck.Load()
	if now-last < int64(trimEvery) || !lastCheck.CompareAndSwap(last, now) {
		return
	}
	Relieve(limit)
}

// lastRelease is when Relieve last returned the Go heap's free pages.
var lastRelease atomic.Int64

// Relieve brings the process's resident memory towards limit bytes when
// it holds more: first the Go heap's free pages go back to the system
// (at most once every releaseEvery, and only when they are more than an
// eighth of limit: a build's work arrays, once collected, stay resident
// for a long time otherwise), then, when the mapped tables still hold
// more than an eighth of limit, their pages are dropped (DropResident;
// fewer are not worth their coming back), less often while the
// process's own memory alone is 1.5 times limit (futileDropEvery).
func Relieve(limit int64) {
	relieve(limit, false)
}

// Settle is Relieve at the end of a step of the work that leaves work
// arrays behind: the Go heap is collected and its free pages go back to
// the system whatever they are, as the arrays may not be collected yet.
func Settle(limit int64) {
	relieve(limit, true)
}

func relieve(limit int64, collect bool) {
	if limit <= 0 {
		return
	}
	total, shared, ok := residentBytes()
	if !ok || total <= limit {
		return
	}
	now := time.Now().UnixNano()
	if collect || heapFreeBytes() > limit/8 && now-lastRelease.Load() >= int64(releaseEvery) {
		lastRelease.Store(now)
		debug.FreeOSMemory()
		if total, shared, _ = residentBytes(); total <= limit {
			return
		}
	}
	// While the process's own memory alone passes the limit by half, the
	// limit is far out of reach: the mapped pages are then dropped only
	// every futileDropEvery (or at a phase's end), which bounds them
	// without faulting a walk's whole working set back in every
	// trimEvery.
	if shared <= limit/8 || !collect && (total-shared)*2 >= limit*3 && now-lastDrop.Load() < int64(futileDropEvery) {
		return
	}
	lastDrop.Store(now)
	DropResident()
}

// lastDrop is when relieve last dropped the mapped pages.
var lastDrop atomic.Int64

// futileDropEvery is the least time between two drops while the
// process's own memory alone is 1.5 times the limit.
const futileDropEvery = 10 * trimEvery

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
