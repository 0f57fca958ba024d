package bigmem

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// The budget bounds the process's own memory: its anonymous resident
// memory, which is the Go heap and what the runtime holds. The pages of a
// mapped table are the page cache's: they count in the process's resident
// memory while it maps them, but the kernel takes them back (writing them
// to the scratch file first) whenever it needs the memory, and a page read
// again is mapped back in from the page cache without a read from the
// disk while the cache keeps it. Dropping them from the process on its
// own would only make the walks over the tables fault them back in at
// random: on a 16 GiB dump the predecessors phase took 299 s with a drop
// every 40 ms.
//
// What the process does itself is give the Go heap's free pages back to
// the system: a build's work arrays, once collected, would otherwise stay
// resident for a long time.

// trimEvery is how often BoundResident looks at the resident memory:
// reading it costs some microseconds.
const trimEvery = 20 * time.Millisecond

// releaseEvery is the least time between two returns of the Go heap's free
// pages to the system (each costs a garbage collection).
const releaseEvery = time.Second

// peakAnonymous is the highest anonymous resident memory BoundResident or
// a Pacer saw.
var peakAnonymous atomic.Int64

// BoundResident checks the process's anonymous resident memory every
// trimEvery until stop is called, and relieves it (Relieve) when it holds
// more than limit bytes. Where the system does not report resident memory
// it does nothing.
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

// A Pacer counts the steps of a long loop that allocates or touches
// memory fast (a depth-first search, a pass over the references) and
// every paceSteps of them checks the resident memory against the running
// BoundResident's limit, when no check was made for trimEvery: with the
// cores busy, the checks of BoundResident's goroutine come late. The zero
// Pacer is ready; each goroutine needs its own.
type Pacer struct{ steps uint32 }

// Step counts one step.
func (p *Pacer) Step() {
	p.steps++
	if p.steps%paceSteps == 0 {
		pace()
	}
}

// Advance counts n steps at once, for a loop that takes them in bulk (a
// copy).
func (p *Pacer) Advance(n int) {
	before := p.steps
	p.steps += uint32(n)
	if before/paceSteps != p.steps/paceSteps {
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

// releases counts the returns of the Go heap's free pages to the system.
var releases atomic.Int64

// Relieve brings the process's anonymous resident memory towards limit
// bytes when it holds more: the Go heap's free pages go back to the
// system, at most once every releaseEvery, and only when they are more
// than an eighth of limit.
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
	if !ok {
		return
	}
	anon := total - shared
	notePeak(anon)
	if anon <= limit {
		return
	}
	now := time.Now().UnixNano()
	if collect || heapFreeBytes() > limit/8 && now-lastRelease.Load() >= int64(releaseEvery) {
		lastRelease.Store(now)
		releases.Add(1)
		debug.FreeOSMemory()
	}
}

// notePeak raises peakAnonymous to anon when it is higher.
func notePeak(anon int64) {
	for {
		peak := peakAnonymous.Load()
		if anon <= peak || peakAnonymous.CompareAndSwap(peak, anon) {
			return
		}
	}
}

// PeakAnonymous returns the highest anonymous resident memory seen by the
// checks of BoundResident, the Pacers and Settle, in bytes: the system
// keeps the peak of the whole resident memory (VmHWM), which counts the
// mapped tables' page-cache pages, but not of the anonymous part.
func PeakAnonymous() int64 { return peakAnonymous.Load() }

// Releases returns how many times the Go heap's free pages were given
// back to the system past a limit.
func Releases() int64 { return releases.Load() }
