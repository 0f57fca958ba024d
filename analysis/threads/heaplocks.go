package threads

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// HeapDeadlocks finds the deadlocks a heap dump can prove: cycles of
// threads parked on java.util.concurrent ownable synchronizers
// (ReentrantLock, ReentrantReadWriteLock's write lock, ...), each waiting
// for the synchronizer's exclusive owner. Where such waits end at a thread
// BLOCKED entering a monitor, which no heap dump names, it reports a
// possible deadlock with that evidence. It also returns notes on what the
// dump cannot tell: monitor (synchronized) deadlocks leave no owner in any
// heap dump, so they are never proven from one, and the notes suggest a
// thread dump of the process instead.
func HeapDeadlocks(hl *HeapLocks) (DeadlockReport, []string) {
	r := FindDeadlocks(hl.Dump)
	r.PossibleDeadlocks = possibleDeadlocks(hl.Dump, r.Deadlocks)
	judge(hl.Dump, &r, hl.StatesKnown)
	var notes []string
	if n := len(r.PossibleDeadlocks); n > 0 {
		notes = append(notes, fmt.Sprintf("%s: threads wait for java.util.concurrent locks held by a thread BLOCKED entering a monitor "+
			"that the heap dump cannot name; if a waiting thread holds that monitor, they are deadlocked", countOf(n, "possible deadlock")))
	}
	switch {
	case hl.Agent:
		notes = append(notes, "monitor (synchronized) deadlocks cannot be proven from a heap dump: it records no monitor owners or waiters; "+
			"the hprof agent's MONITOR DUMP (monitor=y, ASCII output) does")
	case hl.MonitorRoots == 0:
		notes = append(notes, "monitor (synchronized) deadlocks cannot be proven from a heap dump of JDK 12 or later: "+
			"HotSpot stopped writing monitor-used roots after JDK 11, and no heap dump records which thread owns or waits for a monitor")
	default:
		notes = append(notes, fmt.Sprintf("the heap dump has %d monitor-used roots but records no monitor owners or waiters: "+
			"monitor (synchronized) deadlocks cannot be proven from it", hl.MonitorRoots))
	}
	if !hl.StatesKnown {
		notes = append(notes, "the Thread objects hold no threadStatus field this version of hprofctl reads: thread states are unknown")
	} else if n := blockedOnMonitors(hl.Dump); n > 0 {
		verb := "are"
		if n == 1 {
			verb = "is"
		}
		notes = append(notes, fmt.Sprintf("%s %s BLOCKED entering a monitor (Thread.threadStatus); the heap dump does not say which monitor", countOf(n, "thread"), verb))
	}
	if hl.Parked == 0 {
		notes = append(notes, "no thread is parked on a java.util.concurrent synchronizer: the heap dump holds no lock evidence")
	}
	notes = append(notes, "to check monitor deadlocks, capture a thread dump of the process: jstack -l PID, or jcmd PID Thread.print -l")
	return r, notes
}

// PossibleDeadlock is a deadlock a heap dump can neither prove nor rule
// out: threads parked, directly or through other parked threads, on
// java.util.concurrent locks whose owner is BLOCKED entering a monitor.
// No heap dump names that monitor or its owner: if one of the waiting
// threads holds it, they are all deadlocked.
type PossibleDeadlock struct {
	// Blocked is the thread the waits end at.
	Blocked BlockedOwner `json:"blocked"`
	// Waiting are the threads whose waits lead to Blocked, those waiting
	// for it directly first.
	Waiting []BlockedThread `json:"waiting"`
}

// BlockedOwner is the thread a PossibleDeadlock's waits end at: its state,
// its innermost frame (where it waits to enter the monitor), and the locks
// it holds that the waiting threads wait for.
type BlockedOwner struct {
	Name  string    `json:"name"`
	State string    `json:"state"`
	Frame string    `json:"frame"`
	Holds []LockRef `json:"holds"`
}

// possibleDeadlocks finds, for each thread BLOCKED on a monitor the dump
// does not name and outside the proven deadlocks, the threads whose waits
// lead to it.
func possibleDeadlocks(d *thread.Dump, proven []Deadlock) []PossibleDeadlock {
	out := []PossibleDeadlock{}
	deadlocked := map[int]bool{}
	for _, dl := range proven {
		for _, t := range dl.Threads {
			deadlocked[t.Thread] = true
		}
	}
	owner := lockOwners(d)
	type wait struct {
		thread int
		lock   thread.Lock
	}
	waiters := make([][]wait, len(d.Threads))
	named := make([]bool, len(d.Threads)) // blocked on a monitor the dump names
	for i := range d.Threads {
		for _, w := range d.Threads[i].Waits() {
			if w.Action == thread.Enters {
				named[i] = true
			}
			if o, ok := owner[w.Lock]; ok && o != i {
				waiters[o] = append(waiters[o], wait{i, w.Lock})
			}
		}
	}
	for o := range d.Threads {
		t := &d.Threads[o]
		if t.State != "BLOCKED" || named[o] || deadlocked[o] || len(waiters[o]) == 0 {
			continue
		}
		p := PossibleDeadlock{Blocked: BlockedOwner{Name: t.Name, State: t.State, Holds: []LockRef{}}}
		if len(t.Frames) > 0 {
			p.Blocked.Frame = heap.FrameString(t.Frames[0])
		}
		held := map[thread.Lock]bool{}
		for _, w := range waiters[o] {
			if !held[w.lock] {
				held[w.lock] = true
				p.Blocked.Holds = append(p.Blocked.Holds, LockRefOf(w.lock))
			}
		}
		seen := map[int]bool{o: true}
		for queue := []int{o}; len(queue) > 0; queue = queue[1:] {
			for _, w := range waiters[queue[0]] {
				if seen[w.thread] {
					continue
				}
				seen[w.thread] = true
				queue = append(queue, w.thread)
				wt := &d.Threads[w.thread]
				p.Waiting = append(p.Waiting, BlockedThread{Name: wt.Name, State: wt.State, WaitingFor: LockRefOf(w.lock),
					HeldBy: d.Threads[queue[0]].Name, Thread: w.thread, Deadlock: -1})
			}
		}
		out = append(out, p)
	}
	return out
}

// countOf writes a count and a noun, with an s unless the count is 1.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// blockedOnMonitors counts the threads in state BLOCKED.
func blockedOnMonitors(d *thread.Dump) int {
	n := 0
	for i := range d.Threads {
		if d.Threads[i].State == "BLOCKED" {
			n++
		}
	}
	return n
}

// HeapLock is a lock of a thread dump tied to the object at its address in
// a heap dump of the same process and moment: the object's class and the
// shortest path that retains it.
type HeapLock struct {
	Lock LockRef `json:"lock"`
	// Class is the class of the heap object at the lock's address; empty
	// when the heap dump holds no object there (taken at another moment,
	// or after a GC moved it).
	Class string `json:"class"`
	// Paths are the shortest paths from GC roots to the object.
	Paths []heap.RetainerPath `json:"paths"`
}

// DeadlockLocks lists, once each and in report order, the locks with an
// address that the threads of the deadlocks wait for.
func DeadlockLocks(reports []DeadlockReport) []LockRef {
	var out []LockRef
	seen := map[LockRef]bool{}
	for _, r := range reports {
		for _, d := range r.Deadlocks {
			for _, t := range d.Threads {
				if l := t.WaitingFor; l.ID != "" && !seen[l] {
					seen[l] = true
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// LockObjects returns the heap objects at the addresses of locks, leaving
// out the addresses the heap dump has no object at.
func LockObjects(h *model.Heap, locks []LockRef) []model.ObjectIndex {
	var out []model.ObjectIndex
	for _, l := range locks {
		if o, ok := lockObject(h, l); ok {
			out = append(out, o)
		}
	}
	return out
}

// lockObject returns the heap object at the address of lock l.
func lockObject(h *model.Heap, l LockRef) (model.ObjectIndex, bool) {
	id, err := strconv.ParseUint(strings.TrimPrefix(l.ID, "0x"), 16, 64)
	if err != nil || l.ID == "" {
		return model.NoObject, false
	}
	return h.Lookup(id)
}

// TieLocks ties each lock to its heap object: its class, and those of
// paths (DescribePaths of ShortestPaths to LockObjects) that end at it.
func TieLocks(h *model.Heap, locks []LockRef, paths heap.Retainers) []HeapLock {
	out := make([]HeapLock, 0, len(locks))
	for _, l := range locks {
		hl := HeapLock{Lock: l, Paths: []heap.RetainerPath{}}
		if o, ok := lockObject(h, l); ok {
			hl.Class = heap.ClassName(h, o)
			for _, p := range paths.Paths {
				if n := len(p.Chain); n > 0 && p.Chain[n-1].ObjectID == heap.ObjectID(h, o) {
					hl.Paths = append(hl.Paths, p)
				}
			}
		}
		out = append(out, hl)
	}
	return out
}
