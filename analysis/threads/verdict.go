package threads

import (
	"fmt"
	"sort"

	"github.com/hprofctl/hprofctl/model/thread"
)

// The verdicts a DeadlockReport gives, in its Verdict field.
const (
	// VerdictDeadlock: the dump proves a deadlock.
	VerdictDeadlock = "deadlock"
	// VerdictPossible: no deadlock is proven, but threads wait for locks
	// whose owner the dump does not record, and some way of assigning
	// those owners closes a cycle.
	VerdictPossible = "possible_deadlock"
	// VerdictCannotTell: the dump lacks what a deadlock would show (the
	// thread states, or the threads after a cut).
	VerdictCannotTell = "cannot_tell"
	// VerdictNone: the dump could have shown a deadlock and shows none.
	VerdictNone = "no_deadlock"
)

// unknownWait is a thread waiting for a lock whose owner the dump does not
// record: it could be waiting for any other waiting thread.
type unknownWait struct {
	thread int
	what   string
}

// judge sets r's Verdict and Evidence from what FindDeadlocks (and, for a
// heap dump, possibleDeadlocks) found in d; statesKnown tells whether the
// dump gives the threads' states.
//
// "No deadlock" is said only where the dump could have shown one: every
// thread of a deadlock waits for a lock, so a deadlock the dump cannot
// prove needs a thread waiting for a lock of unknown owner (parked on an
// ownable synchronizer in a dump without synchronizer owners, or BLOCKED
// entering a monitor the dump does not name). Such a wait may end at any
// other waiting thread; waits known to end at a thread that waits for
// nothing cannot be part of a cycle. If a wait of unknown owner survives
// among at least two such threads, a cycle can be closed through it: the
// verdict is "possible", with those threads' waits as evidence.
func judge(d *thread.Dump, r *DeadlockReport, statesKnown bool) {
	r.Evidence = []string{}
	switch {
	case len(r.Deadlocks) > 0:
		r.Verdict = VerdictDeadlock
		return
	case len(r.PossibleDeadlocks) > 0:
		r.Verdict = VerdictPossible
		for _, p := range r.PossibleDeadlocks {
			r.Evidence = append(r.Evidence, fmt.Sprintf("%q is %s entering a monitor the dump does not name, holding locks %s wait for",
				p.Blocked.Name, p.Blocked.State, countOf(len(p.Waiting), "thread")))
		}
		return
	case !statesKnown:
		r.Verdict = VerdictCannotTell
		r.Evidence = append(r.Evidence, "the dump gives no thread states: threads BLOCKED on a monitor cannot be told apart")
		return
	}
	if ev := possibleCycle(d); len(ev) > 0 {
		r.Verdict = VerdictPossible
		r.Evidence = ev
		return
	}
	if r.Truncated {
		r.Verdict = VerdictCannotTell
		r.Evidence = append(r.Evidence, "the dump is cut short: the threads after the cut are missing")
		return
	}
	r.Verdict = VerdictNone
}

// possibleCycle returns, as evidence, the waits of the threads that a
// cycle through a lock of unknown owner could be made of; none when no
// such cycle can exist.
func possibleCycle(d *thread.Dump) []string {
	owner := lockOwners(d)
	known := make([]int, len(d.Threads)) // the owner waited for, or -1
	unknown := map[int]string{}
	for i := range d.Threads {
		known[i] = -1
		t := &d.Threads[i]
		enters := false
		for _, w := range t.Waits() {
			if w.Action == thread.Enters {
				enters = true
			}
			o, ok := owner[w.Lock]
			switch {
			case ok && o != i:
				known[i] = o
			case !ok && w.Action == thread.Parks && !d.SynchronizerOwners && ownableSynchronizer(w.Lock.Class):
				unknown[i] = fmt.Sprintf("%q is %s, parked on %s, whose owner the dump does not record", t.Name, t.State, lockText(LockRefOf(w.Lock)))
			}
		}
		if t.State == thread.StateBlocked && !enters && known[i] < 0 {
			unknown[i] = fmt.Sprintf("%q is BLOCKED entering a monitor the dump does not name", t.Name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	alive := map[int]bool{}
	for i := range d.Threads {
		if known[i] >= 0 || unknown[i] != "" {
			alive[i] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range alive {
			if unknown[i] != "" && len(alive) > 1 {
				continue
			}
			if unknown[i] == "" && alive[known[i]] {
				continue
			}
			delete(alive, i)
			changed = true
		}
	}
	var ids []int
	for i := range alive {
		ids = append(ids, i)
	}
	sort.Ints(ids)
	var ev []string
	for _, i := range ids {
		if w := unknown[i]; w != "" {
			ev = append(ev, w)
			continue
		}
		ev = append(ev, fmt.Sprintf("%q is %s, waiting for %q", d.Threads[i].Name, d.Threads[i].State, d.Threads[known[i]].Name))
	}
	hasUnknown := false
	for _, i := range ids {
		hasUnknown = hasUnknown || unknown[i] != ""
	}
	if !hasUnknown {
		return nil
	}
	return ev
}

// lockText names a lock in a sentence: its class and address or name.
func lockText(l LockRef) string {
	switch {
	case l.ID != "":
		return l.Class + " " + l.ID
	case l.Name != "":
		return l.Name
	}
	return l.Class
}
