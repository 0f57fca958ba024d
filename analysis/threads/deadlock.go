package threads

import (
	"fmt"
	"sort"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model/thread"
)

// LockRef names a lock in a deadlock report: its kind ("monitor",
// "raw_monitor", "synchronizer"), the class of the lock object, its
// address as 0x-hex (the object id of a heap dump of the same moment), and
// the name a dump gives instead of an address (raw monitors, and the
// "CLASS@HASH" identity of JDK 21+ Thread.dump_to_file dumps).
type LockRef struct {
	Kind  string `json:"kind"`
	Class string `json:"class"`
	ID    string `json:"object_id"`
	Name  string `json:"name"`
}

// DeadlockThread is one thread of a deadlock: the lock it waits for, the
// thread of the same deadlock holding that lock, and its stack from the
// innermost frame down to the deepest frame that waits for or took a lock
// of the deadlock (the whole stack when the dump does not say which frame
// took it).
type DeadlockThread struct {
	Name       string   `json:"name"`
	State      string   `json:"state"`
	WaitingFor LockRef  `json:"waiting_for"`
	HeldBy     string   `json:"held_by"`
	Frames     []string `json:"frames"`
	// Thread is the thread's index in the dump's Threads.
	Thread int `json:"-"`
	// Locks are the thread's lock lines for the frames in Frames (Frame
	// indexes into Frames), and those tied to no frame (Frame -1).
	Locks []thread.LockUse `json:"-"`
}

// Deadlock is one cycle of the wait-for graph, in cycle order: each
// thread waits for a lock the next one holds, the last for one the first
// holds.
type Deadlock struct {
	Threads []DeadlockThread `json:"threads"`
}

// BlockedThread is a thread waiting for a lock outside any deadlock: one
// blocked behind a deadlock (its chain of waits ends in a deadlocked
// thread), or one waiting for a lock whose owner the dump does not record.
type BlockedThread struct {
	Name       string  `json:"name"`
	WaitingFor LockRef `json:"waiting_for"`
	HeldBy     string  `json:"held_by"`
	// State is the thread's state.
	State string `json:"-"`
	// Thread is the thread's index in the dump's Threads.
	Thread int `json:"-"`
	// Deadlock is the index in Deadlocks of the deadlock the thread is
	// blocked behind; -1 for a wait with an unknown owner.
	Deadlock int `json:"-"`
}

// DeadlockReport is what FindDeadlocks found in one dump.
type DeadlockReport struct {
	Deadlocks []Deadlock `json:"deadlocks"`
	// BlockedBehind lists the threads that wait, directly or through
	// other waiting threads, for a deadlocked thread: by deadlock, those
	// waiting directly first.
	BlockedBehind []BlockedThread `json:"blocked_behind"`
	// OwnerUnknown lists threads parked on an ownable synchronizer
	// (ReentrantLock, ReentrantReadWriteLock, a ThreadPoolExecutor
	// worker) in a dump that does not record synchronizer owners: a
	// deadlock through such a lock can be neither shown nor ruled out.
	OwnerUnknown []BlockedThread `json:"owner_unknown"`
	// PossibleDeadlocks lists the waits a heap dump can neither prove to
	// be deadlocks nor rule out (see HeapDeadlocks); thread dumps, which
	// name every monitor, have none.
	PossibleDeadlocks []PossibleDeadlock `json:"possible_deadlocks"`
	// Source names the dump; the caller fills it in.
	Source string `json:"source"`
	// Threads is the number of threads in the dump.
	Threads int `json:"threads"`
	// Truncated is set when the dump was cut short.
	Truncated bool `json:"truncated"`
}

// BlockedBehindDeadlock is the part of BlockedBehind blocked behind
// deadlock k (an index in Deadlocks), in BlockedBehind's order.
func (r DeadlockReport) BlockedBehindDeadlock(k int) []BlockedThread {
	var behind []BlockedThread
	for _, b := range r.BlockedBehind {
		if b.Deadlock == k {
			behind = append(behind, b)
		}
	}
	return behind
}

// Verdict is what deadlock reports found, from the least to the worst.
type Verdict int

// The verdicts.
const (
	// NoDeadlockFound: no report has a deadlock or a possible one.
	NoDeadlockFound Verdict = iota
	// OnlyPossibleDeadlocks: some report has a possible deadlock (a heap
	// dump's waits it can neither prove nor rule out), none a deadlock.
	OnlyPossibleDeadlocks
	// DeadlockFound: some report has a deadlock.
	DeadlockFound
)

// DeadlockVerdict returns the worst finding of reports.
func DeadlockVerdict(reports []DeadlockReport) Verdict {
	v := NoDeadlockFound
	for _, r := range reports {
		switch {
		case len(r.Deadlocks) > 0:
			return DeadlockFound
		case len(r.PossibleDeadlocks) > 0:
			v = OnlyPossibleDeadlocks
		}
	}
	return v
}

// waitEdge is an edge of the wait-for graph: a thread waits for lock,
// which thread owner holds.
type waitEdge struct {
	lock  thread.LockUse
	owner int
}

// FindDeadlocks builds the wait-for graph of a thread dump and finds its
// cycles (docs/thread-dumps.md#deadlock-rules). An edge goes from a thread
// to the owner of the monitor or raw monitor it is blocked entering, or of
// the synchronizer it is parked on; a thread in Object.wait adds none. A
// deadlock is a strongly connected component of more than one thread, or a
// thread parked on a synchronizer it owns itself (synchronizers, unlike
// monitors, need not be reentrant). Threads that merely wait behind a
// deadlocked thread are reported apart. Any deadlock verdict printed in
// the dump is ignored.
func FindDeadlocks(d *thread.Dump) DeadlockReport {
	out := DeadlockReport{
		Deadlocks: []Deadlock{}, BlockedBehind: []BlockedThread{}, OwnerUnknown: []BlockedThread{},
		PossibleDeadlocks: []PossibleDeadlock{}, Threads: len(d.Threads), Truncated: d.Truncated,
	}
	owner := lockOwners(d)
	edges := make([][]waitEdge, len(d.Threads))
	selfWait := make([]bool, len(d.Threads))
	for i := range d.Threads {
		t := &d.Threads[i]
		for _, w := range t.Waits() {
			o, ok := owner[w.Lock]
			switch {
			case !ok:
				if w.Action == thread.Parks && !d.SynchronizerOwners && ownableSynchronizer(w.Lock.Class) {
					out.OwnerUnknown = append(out.OwnerUnknown, BlockedThread{
						Name: t.Name, State: t.State, WaitingFor: LockRefOf(w.Lock), Thread: i, Deadlock: -1})
				}
			case o == i:
				// A monitor is reentrant: a thread cannot wait for one it
				// holds, so such a line is a snapshot inconsistency.
				if w.Lock.Kind == thread.LockSynchronizer {
					edges[i] = append(edges[i], waitEdge{w, o})
					selfWait[i] = true
				}
			default:
				edges[i] = append(edges[i], waitEdge{w, o})
			}
		}
	}
	for _, comp := range stronglyConnected(edges) {
		if len(comp) > 1 || selfWait[comp[0]] {
			out.Deadlocks = append(out.Deadlocks, deadlockOf(d, comp, edges))
		}
	}
	sort.Slice(out.Deadlocks, func(a, b int) bool {
		return out.Deadlocks[a].Threads[0].Thread < out.Deadlocks[b].Threads[0].Thread
	})
	out.BlockedBehind = blockedBehind(d, out.Deadlocks, edges)
	return out
}

// lockOwners maps each lock to the thread that owns it. When several
// threads claim one (a snapshot taken while it changed hands, or a JSON
// dump listing a monitor its waiter must re-enter as owned), a thread
// outside Object.wait wins over one inside it, then the first in the dump.
func lockOwners(d *thread.Dump) map[thread.Lock]int {
	owner := map[thread.Lock]int{}
	for i := range d.Threads {
		t := &d.Threads[i]
		for _, l := range t.OwnedLocks() {
			prev, claimed := owner[l]
			if !claimed || (d.Threads[prev].InObjectWait() && !t.InObjectWait()) {
				owner[l] = i
			}
		}
	}
	return owner
}

// ownableSynchronizer tells whether class is a JDK synchronizer that a
// thread owns exclusively while holding it.
func ownableSynchronizer(class string) bool {
	switch class {
	case "java.util.concurrent.locks.ReentrantLock$NonfairSync",
		"java.util.concurrent.locks.ReentrantLock$FairSync",
		"java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync",
		"java.util.concurrent.locks.ReentrantReadWriteLock$FairSync",
		"java.util.concurrent.ThreadPoolExecutor$Worker":
		return true
	}
	return false
}

// LockRefOf names a lock of a thread dump as deadlock reports do.
func LockRefOf(l thread.Lock) LockRef {
	r := LockRef{Kind: string(l.Kind), Class: l.Class, Name: l.Name}
	if l.ID != 0 {
		r.ID = fmt.Sprintf("0x%x", l.ID)
	}
	return r
}

// stronglyConnected returns the strongly connected components of the
// graph (Tarjan's algorithm, without recursion), each sorted by thread.
func stronglyConnected(edges [][]waitEdge) [][]int {
	n := len(edges)
	index := make([]int, n) // 0: not visited; else visit order + 1
	low := make([]int, n)
	onStack := make([]bool, n)
	var comps [][]int
	var order []int
	next := 1
	type frame struct{ node, edge int }
	for root := range n {
		if index[root] != 0 {
			continue
		}
		calls := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		order = append(order, root)
		onStack[root] = true
		for len(calls) > 0 {
			top := &calls[len(calls)-1]
			v := top.node
			if top.edge < len(edges[v]) {
				w := edges[v][top.edge].owner
				top.edge++
				switch {
				case index[w] == 0:
					index[w], low[w] = next, next
					next++
					order = append(order, w)
					onStack[w] = true
					calls = append(calls, frame{w, 0})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				parent := calls[len(calls)-1].node
				low[parent] = min(low[parent], low[v])
			}
			if low[v] == index[v] {
				var comp []int
				for {
					w := order[len(order)-1]
					order = order[:len(order)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				sort.Ints(comp)
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// deadlockOf lays out one cycle: from its first thread in dump order,
// each thread followed by the owner of the lock it waits for.
func deadlockOf(d *thread.Dump, comp []int, edges [][]waitEdge) Deadlock {
	member := map[int]bool{}
	for _, v := range comp {
		member[v] = true
	}
	var order []int
	used := map[int]waitEdge{}
	placed := map[int]bool{}
	for v := comp[0]; !placed[v]; {
		placed[v] = true
		order = append(order, v)
		e := cycleEdge(edges[v], member, placed, comp[0])
		used[v] = e
		v = e.owner
	}
	for _, v := range comp {
		if !placed[v] {
			order = append(order, v)
			used[v] = cycleEdge(edges[v], member, placed, comp[0])
		}
	}
	// The locks each thread holds that another thread of the cycle waits for.
	wanted := map[int][]thread.Lock{}
	for _, v := range order {
		e := used[v]
		wanted[e.owner] = append(wanted[e.owner], e.lock.Lock)
	}
	var out Deadlock
	for _, v := range order {
		t := &d.Threads[v]
		e := used[v]
		shown := stackDepth(t, e.lock, wanted[v])
		dt := DeadlockThread{
			Name: t.Name, State: t.State, WaitingFor: LockRefOf(e.lock.Lock), HeldBy: d.Threads[e.owner].Name,
			Frames: []string{}, Thread: v,
		}
		for _, f := range t.Frames[:shown] {
			dt.Frames = append(dt.Frames, heap.FrameString(f))
		}
		for _, l := range t.Locks {
			if l.Frame < shown {
				dt.Locks = append(dt.Locks, l)
			}
		}
		out.Threads = append(out.Threads, dt)
	}
	return out
}

// cycleEdge picks the edge a thread of a strongly connected component is
// shown waiting on: to a member not yet placed in the cycle's order if
// there is one, else back to the first member, else to any member. Every
// member of a component has an edge to a member.
func cycleEdge(es []waitEdge, member, placed map[int]bool, first int) waitEdge {
	var back waitEdge
	found := false
	for _, e := range es {
		if !member[e.owner] {
			continue
		}
		if !placed[e.owner] {
			return e
		}
		if !found || e.owner == first {
			back, found = e, true
		}
	}
	return back
}

// stackDepth is how many frames of t to show: down to the frame that waits
// for lock wait or took one of the held locks, or all when the dump ties
// one of them to no frame.
func stackDepth(t *thread.Snapshot, wait thread.LockUse, held []thread.Lock) int {
	if wait.Frame < 0 {
		return len(t.Frames)
	}
	tookIn := map[thread.Lock]int{} // the deepest frame holding each lock
	for _, l := range t.Locks {
		if l.Action == thread.Holds {
			if f, ok := tookIn[l.Lock]; !ok || l.Frame > f {
				tookIn[l.Lock] = l.Frame
			}
		}
	}
	deepest := wait.Frame
	for _, h := range held {
		frame, ok := tookIn[h]
		if !ok || frame < 0 {
			return len(t.Frames)
		}
		deepest = max(deepest, frame)
	}
	return min(deepest+1, len(t.Frames))
}

// blockedBehind finds the threads outside the deadlocks whose waits lead
// to a deadlocked thread, walking the wait-for edges backwards from the
// deadlocks; each is reported with its own wait and the thread it waits
// for.
func blockedBehind(d *thread.Dump, deadlocks []Deadlock, edges [][]waitEdge) []BlockedThread {
	type waiter struct {
		thread int
		lock   thread.Lock
	}
	waiters := make([][]waiter, len(edges))
	for v, es := range edges {
		for _, e := range es {
			waiters[e.owner] = append(waiters[e.owner], waiter{v, e.lock.Lock})
		}
	}
	behind := make([]int, len(edges)) // deadlock index + 1; 0: none yet
	hops := make([]int, len(edges))   // waits between the thread and the deadlock
	var queue []int
	for k, dl := range deadlocks {
		for _, t := range dl.Threads {
			behind[t.Thread] = k + 1
			queue = append(queue, t.Thread)
		}
	}
	out := []BlockedThread{}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range waiters[v] {
			if behind[w.thread] != 0 {
				continue
			}
			behind[w.thread] = behind[v]
			hops[w.thread] = hops[v] + 1
			queue = append(queue, w.thread)
			t := &d.Threads[w.thread]
			out = append(out, BlockedThread{Name: t.Name, State: t.State, WaitingFor: LockRefOf(w.lock),
				HeldBy: d.Threads[v].Name, Thread: w.thread, Deadlock: behind[v] - 1})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Deadlock != y.Deadlock {
			return x.Deadlock < y.Deadlock
		}
		if hops[x.Thread] != hops[y.Thread] {
			return hops[x.Thread] < hops[y.Thread]
		}
		return x.Thread < y.Thread
	})
	return out
}
