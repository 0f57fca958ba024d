package threads

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model/thread"
)

// heapPair is a heap dump's lock state with threads t1 and t2 each parked
// on the ReentrantLock sync the other owns, and t3 BLOCKED.
func heapPair(monitorRoots int) *HeapLocks {
	a := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0x10}
	b := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$FairSync", ID: 0x20}
	return &HeapLocks{
		Dump: &thread.Dump{SynchronizerOwners: true, Threads: []thread.Snapshot{
			{Name: "t1", State: "WAITING", Locks: []thread.LockUse{{Lock: a, Action: thread.Holds, Frame: -1}, {Lock: b, Action: thread.Parks, Frame: -1}}},
			{Name: "t2", State: "WAITING", Locks: []thread.LockUse{{Lock: b, Action: thread.Holds, Frame: -1}, {Lock: a, Action: thread.Parks, Frame: -1}}},
			{Name: "t3", State: "BLOCKED"},
		}},
		StatesKnown: true, Parked: 2, MonitorRoots: monitorRoots,
	}
}

func TestHeapDeadlocks(t *testing.T) {
	r, notes := HeapDeadlocks(heapPair(0))
	if len(r.Deadlocks) != 1 || len(r.Deadlocks[0].Threads) != 2 {
		t.Fatalf("deadlocks %+v, want the t1-t2 cycle", r.Deadlocks)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"JDK 12 or later", "1 thread is BLOCKED", "thread dump"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	_, notes = HeapDeadlocks(heapPair(3))
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "3 monitor-used roots") || strings.Contains(all, "JDK 12") {
		t.Errorf("notes of a dump with monitor roots:\n%s", all)
	}
}

func TestHeapDeadlocksNoEvidence(t *testing.T) {
	hl := &HeapLocks{Dump: &thread.Dump{SynchronizerOwners: true, Threads: []thread.Snapshot{{Name: "main"}}}}
	r, notes := HeapDeadlocks(hl)
	all := strings.Join(notes, "\n")
	if len(r.Deadlocks) != 0 || !strings.Contains(all, "thread states are unknown") || !strings.Contains(all, "no lock evidence") {
		t.Errorf("deadlocks %+v, notes:\n%s", r.Deadlocks, all)
	}
}

func TestDeadlockLocks(t *testing.T) {
	a := LockRef{Kind: "monitor", Class: "A", ID: "0x10"}
	b := LockRef{Kind: "synchronizer", Class: "B", ID: "0x20"}
	named := LockRef{Kind: "monitor", Class: "C", Name: "C@1f"}
	reports := []DeadlockReport{
		{Deadlocks: []Deadlock{{Threads: []DeadlockThread{{WaitingFor: a}, {WaitingFor: b}}}}},
		{Deadlocks: []Deadlock{{Threads: []DeadlockThread{{WaitingFor: b}, {WaitingFor: named}}}}},
	}
	got := DeadlockLocks(reports)
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("got %+v, want the locks with an address once each: %+v %+v", got, a, b)
	}
}

// TestPossibleDeadlockChain: t1 parks on a lock t2 owns, t2 on one t3 owns,
// and t3 is BLOCKED on a monitor the heap dump does not name: one possible
// deadlock ending at t3, t2 waiting for it directly and t1 through t2. t4,
// BLOCKED with nobody waiting for it, is none.
func TestPossibleDeadlockChain(t *testing.T) {
	a := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0x10}
	b := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0x20}
	hl := &HeapLocks{Dump: &thread.Dump{SynchronizerOwners: true, Threads: []thread.Snapshot{
		{Name: "t1", State: "WAITING", Locks: []thread.LockUse{{Lock: a, Action: thread.Parks, Frame: -1}}},
		{Name: "t2", State: "WAITING", Locks: []thread.LockUse{{Lock: a, Action: thread.Holds, Frame: -1}, {Lock: b, Action: thread.Parks, Frame: -1}}},
		{Name: "t3", State: "BLOCKED", Frames: []thread.Frame{{Class: "app.C", Method: "m", File: "C.java", Line: 7}},
			Locks: []thread.LockUse{{Lock: b, Action: thread.Holds, Frame: -1}}},
		{Name: "t4", State: "BLOCKED"},
	}}, StatesKnown: true, Parked: 2}
	r, _ := HeapDeadlocks(hl)
	if len(r.Deadlocks) != 0 || len(r.PossibleDeadlocks) != 1 {
		t.Fatalf("deadlocks %+v, possible %+v; want one possible", r.Deadlocks, r.PossibleDeadlocks)
	}
	p := r.PossibleDeadlocks[0]
	if p.Blocked.Name != "t3" || p.Blocked.Frame != "app.C.m(C.java:7)" || len(p.Blocked.Holds) != 1 || p.Blocked.Holds[0].ID != "0x20" {
		t.Errorf("blocked %+v", p.Blocked)
	}
	if len(p.Waiting) != 2 || p.Waiting[0].Name != "t2" || p.Waiting[0].HeldBy != "t3" || p.Waiting[1].Name != "t1" || p.Waiting[1].HeldBy != "t2" {
		t.Errorf("waiting %+v, want t2 (held by t3) then t1 (held by t2)", p.Waiting)
	}
}
