package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

// mixedPair is a jstack -l dump of two threads deadlocked through a
// monitor and a ReentrantLock, with a third thread blocked behind them.
func mixedPair() threads.DeadlockReport {
	monitor := thread.Lock{Kind: thread.LockMonitor, Class: "java.lang.Object", ID: 0x7ff0010}
	reentrant := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0x7ff0020}
	return threads.DeadlockReport{
		Source: "mixed-pair.jstack.txt", Threads: 14,
		Deadlocks: []threads.Deadlock{{Threads: []threads.DeadlockThread{
			{Name: "monitor-then-lock", State: "WAITING", WaitingFor: threads.LockRefOf(reentrant), HeldBy: "lock-then-monitor \"β\"",
				Frames: []string{"jdk.internal.misc.Unsafe.park(Native Method)", "app.MixedPair.a(MixedPair.java:21)"},
				Locks: []thread.LockUse{
					{Lock: reentrant, Action: thread.Parks, Frame: 0},
					{Lock: monitor, Action: thread.Holds, Frame: 1},
				}},
			{Name: "lock-then-monitor \"β\"", State: "BLOCKED", WaitingFor: threads.LockRefOf(monitor), HeldBy: "monitor-then-lock",
				Frames: []string{"app.MixedPair.b(MixedPair.java:33)"},
				Locks: []thread.LockUse{
					{Lock: monitor, Action: thread.Enters, Frame: 0},
					{Lock: reentrant, Action: thread.Holds, Frame: -1},
				}},
		}}},
		BlockedBehind: []threads.BlockedThread{
			{Name: "bystander", State: "BLOCKED", WaitingFor: threads.LockRefOf(monitor), HeldBy: "monitor-then-lock", Deadlock: 0},
		},
		OwnerUnknown: []threads.BlockedThread{},
	}
}

// rawCycle is the agent's MONITOR DUMP of two threads deadlocked on raw
// monitors, which have names and no class.
func rawCycle() threads.DeadlockReport {
	a := thread.Lock{Kind: thread.LockRawMonitor, Name: "lock A", ID: 0x1000}
	b := thread.Lock{Kind: thread.LockRawMonitor, Name: "lock B"}
	return threads.DeadlockReport{
		Source: "java.hprof.txt", Threads: 3, Truncated: true,
		Deadlocks: []threads.Deadlock{{Threads: []threads.DeadlockThread{
			{Name: "t1", State: "MW", WaitingFor: threads.LockRefOf(b), HeldBy: "t2", Frames: []string{},
				Locks: []thread.LockUse{{Lock: a, Action: thread.Holds, Frame: -1}, {Lock: b, Action: thread.Enters, Frame: -1}}},
			{Name: "t2", State: "MW", WaitingFor: threads.LockRefOf(a), HeldBy: "t1", Frames: []string{},
				Locks: []thread.LockUse{{Lock: b, Action: thread.Holds, Frame: -1}, {Lock: a, Action: thread.Enters, Frame: -1}}},
		}}},
		BlockedBehind: []threads.BlockedThread{}, OwnerUnknown: []threads.BlockedThread{},
	}
}

// ownerUnknown is a JSON thread dump with no deadlock, one thread parked
// on a lock whose owner it does not record, and one in Object.wait.
func ownerUnknown() threads.DeadlockReport {
	return threads.DeadlockReport{
		Source: "busy.json", Threads: 9,
		Deadlocks: []threads.Deadlock{}, BlockedBehind: []threads.BlockedThread{},
		OwnerUnknown: []threads.BlockedThread{{Name: "pool-1-thread-1", State: "WAITING", Deadlock: -1,
			WaitingFor: threads.LockRef{Kind: "synchronizer", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", Name: "java.util.concurrent.locks.ReentrantLock$NonfairSync@1b6d3586"}}},
	}
}

func TestDeadlocksGolden(t *testing.T) {
	reports := []threads.DeadlockReport{mixedPair(), rawCycle(), ownerUnknown()}
	out := renderGolden(t, "deadlocks", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Deadlocks(w, reports, o) })
	wantLines(t, "table", out["table"],
		"mixed-pair.jstack.txt: 14 threads, 1 deadlock",
		"Deadlock 1: 2 threads, each waiting for a lock the next one holds",
		`"monitor-then-lock" WAITING, waiting for <0x7ff0020> (a java.util.concurrent.locks.ReentrantLock$NonfairSync) held by "lock-then-monitor \"β\"":`,
		"    at jdk.internal.misc.Unsafe.park(Native Method)",
		"        - parked on <0x7ff0020> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)",
		"        - locked <0x7ff0010> (a java.lang.Object)",
		"        - waiting to lock <0x7ff0010> (a java.lang.Object)",
		"    owns <0x7ff0020> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)",
		"Blocked behind deadlock 1 (not part of it):",
		"java.hprof.txt: 3 threads, cut short (threads after the cut are missing), 1 deadlock",
		`"t1" MW, waiting for raw monitor <lock B> held by "t2":`,
		`    locked raw monitor <"lock A" 0x1000>`,
		"busy.json: 9 threads, no deadlock")
	recs := readCSV(t, out["csv"])
	if len(recs) != 1+3+2+1 {
		t.Fatalf("CSV has %d records, want the header and one per thread of a deadlock, blocked behind one or with an unknown owner (6):\n%s", len(recs), out["csv"])
	}
	if got := strings.Join(recs[0], ","); got != "source,deadlock,role,thread,state,waiting_for_kind,waiting_for_class,waiting_for_object_id,waiting_for_name,held_by" {
		t.Errorf("CSV header %q", got)
	}
	if recs[2][3] != `lock-then-monitor "β"` || recs[3][2] != "blocked behind" || recs[3][1] != "1" || recs[6][2] != "owner unknown" || recs[6][1] != "" {
		t.Errorf("CSV %q", recs)
	}
	var doc struct {
		Reports []threads.DeadlockReport `json:"reports"`
	}
	decodeJSON(t, out["json"], &doc)
	for n, r := range doc.Reports {
		if r.Source != reports[n].Source || len(r.Deadlocks) != len(reports[n].Deadlocks) {
			t.Errorf("JSON report %d decodes to %+v", n, r)
		}
	}
	if len(doc.Reports) != 3 {
		t.Errorf("JSON has %d reports, want 3 in one document", len(doc.Reports))
	}
}

func TestDeadlocksNoneGolden(t *testing.T) {
	none := []threads.DeadlockReport{{Source: "busy.jstack.txt", Threads: 12,
		Deadlocks: []threads.Deadlock{}, BlockedBehind: []threads.BlockedThread{}, OwnerUnknown: []threads.BlockedThread{}}}
	out := renderGolden(t, "deadlocks-none", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Deadlocks(w, none, o) })
	if out["table"] != "busy.jstack.txt: 12 threads, no deadlock\n" {
		t.Errorf("table %q, want the one line that says no deadlock", out["table"])
	}
	if out["csv"] != "source,deadlock,role,thread,state,waiting_for_kind,waiting_for_class,waiting_for_object_id,waiting_for_name,held_by\n" {
		t.Errorf("CSV %q, want the header alone", out["csv"])
	}
}

// TestDeadlocksPossibleGolden renders a heap dump's possible deadlock: two
// threads parked on a ReentrantLock whose owner is BLOCKED on a monitor the
// heap dump does not name.
func TestDeadlocksPossibleGolden(t *testing.T) {
	lock := threads.LockRef{Kind: "synchronizer", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: "0xfe086228"}
	r := []threads.DeadlockReport{{Source: "mixed.hprof (heap dump)", Threads: 15,
		Deadlocks: []threads.Deadlock{}, BlockedBehind: []threads.BlockedThread{}, OwnerUnknown: []threads.BlockedThread{},
		PossibleDeadlocks: []threads.PossibleDeadlock{{
			Blocked: threads.BlockedOwner{Name: "mixed-lock", State: "BLOCKED", Frame: "threads.MixedPair.lockThenMonitor(MixedPair.java:45)",
				Holds: []threads.LockRef{lock}},
			Waiting: []threads.BlockedThread{
				{Name: "mixed-monitor", State: "WAITING", WaitingFor: lock, HeldBy: "mixed-lock", Deadlock: -1},
				{Name: "mixed-bystander", State: "WAITING", WaitingFor: lock, HeldBy: "mixed-lock", Deadlock: -1},
			},
		}},
	}}
	out := renderGolden(t, "deadlocks-possible", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Deadlocks(w, r, o) })
	wantContains(t, "table", out["table"], "no deadlock proven, 1 deadlock possible", `Possible deadlock 1: "mixed-lock" is BLOCKED`,
		"at threads.MixedPair.lockThenMonitor(MixedPair.java:45)", "<0xfe086228> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)")
	if rows := readCSV(t, out["csv"]); len(rows) != 4 || rows[1][2] != "possibly deadlocked, blocked on an unnamed monitor" || rows[2][3] != "mixed-monitor" {
		t.Errorf("CSV rows %q", rows)
	}
}
