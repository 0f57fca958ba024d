package threads_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

// Locks of the synthetic dumps below.
var (
	monitorA  = thread.Lock{Kind: thread.LockMonitor, Class: "demo.A", ID: 0xa0}
	monitorB  = thread.Lock{Kind: thread.LockMonitor, Class: "demo.B", ID: 0xb0}
	monitorC  = thread.Lock{Kind: thread.LockMonitor, Class: "demo.C", ID: 0xc0}
	monitorD  = thread.Lock{Kind: thread.LockMonitor, Class: "demo.D", ID: 0xd0}
	reentrant = thread.Lock{Kind: thread.LockSynchronizer,
		Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0xe0}
	mutex = thread.Lock{Kind: thread.LockSynchronizer, Class: "demo.Mutex", ID: 0xf0}
	raw   = thread.Lock{Kind: thread.LockRawMonitor, Name: "JVMTI agent lock", ID: 0x70}
)

// th builds a thread: frames named f0, f1, … and its lock lines.
func th(name string, frames int, locks ...thread.LockUse) thread.Snapshot {
	t := thread.Snapshot{Name: name, State: "BLOCKED", Locks: locks}
	for i := range frames {
		t.Frames = append(t.Frames, thread.Frame{Class: "demo.Code", Method: "f" + string(rune('0'+i)), File: "Code.java", Line: int32(10 + i)})
	}
	return t
}

func holds(l thread.Lock, frame int) thread.LockUse {
	return thread.LockUse{Lock: l, Action: thread.Holds, Frame: frame}
}

func enters(l thread.Lock) thread.LockUse {
	return thread.LockUse{Lock: l, Action: thread.Enters, Frame: 0}
}

func parks(l thread.Lock) thread.LockUse {
	return thread.LockUse{Lock: l, Action: thread.Parks, Frame: 0}
}

func waitsOn(l thread.Lock) thread.LockUse {
	return thread.LockUse{Lock: l, Action: thread.WaitsOn, Frame: 0}
}

// cycles renders each deadlock as "a>b>c" (each thread, then the one
// holding what it waits for, closing on the first).
func cycles(r threads.DeadlockReport) []string {
	var out []string
	for _, d := range r.Deadlocks {
		var s []string
		for k, t := range d.Threads {
			next := d.Threads[(k+1)%len(d.Threads)].Name
			if t.HeldBy != next {
				s = append(s, t.Name+"(held by "+t.HeldBy+")")
				continue
			}
			s = append(s, t.Name)
		}
		out = append(out, strings.Join(s, ">"))
	}
	return out
}

func blocked(bs []threads.BlockedThread) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name+"->"+b.HeldBy)
	}
	return out
}

func TestDeadlockCases(t *testing.T) {
	for _, c := range []struct {
		name         string
		dump         thread.Dump
		cycles       []string
		behind       []string
		ownerUnknown []string
	}{
		{
			name: "two monitors",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("idle", 1),
				th("t1", 3, enters(monitorB), holds(monitorA, 1)),
				th("t2", 3, enters(monitorA), holds(monitorB, 2)),
			}},
			cycles: []string{"t1>t2"},
		},
		{
			name: "three monitors, a bystander and one behind the bystander",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("behind-bystander", 2, enters(monitorD)),
				th("r0", 2, enters(monitorB), holds(monitorA, 1)),
				th("bystander", 2, enters(monitorB), holds(monitorD, 1)),
				th("r1", 2, enters(monitorC), holds(monitorB, 1)),
				th("r2", 2, enters(monitorA), holds(monitorC, 1)),
			}},
			cycles: []string{"r0>r1>r2"},
			behind: []string{"bystander->r1", "behind-bystander->bystander"},
		},
		{
			name: "waiting to be notified is no edge",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("waiter", 3, waitsOn(monitorA), holds(monitorA, 1), holds(monitorB, 2)),
				th("notifier", 2, enters(monitorB), holds(monitorA, 1)),
			}},
		},
		{
			name: "re-entering a monitor after wait is an edge",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("relock", 3, enters(monitorA), holds(monitorA, 1), holds(monitorB, 2)),
				th("notifier", 2, enters(monitorB), holds(monitorA, 1)),
			}},
			cycles: []string{"relock>notifier"},
		},
		{
			name: "ReentrantLock and monitor",
			dump: thread.Dump{SynchronizerOwners: true, Threads: []thread.Snapshot{
				th("m", 4, parks(reentrant), holds(monitorA, 3)),
				th("l", 2, enters(monitorA), holds(reentrant, -1)),
				th("parked-behind", 2, parks(reentrant)),
			}},
			cycles: []string{"m>l"},
			behind: []string{"parked-behind->l"},
		},
		{
			name: "synchronizer owner not recorded",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("m", 4, parks(reentrant), holds(monitorA, 3)),
				th("l", 2, enters(monitorA)),
				th("latch", 2, parks(thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.CountDownLatch$Sync", ID: 1})),
			}},
			ownerUnknown: []string{"m->"},
		},
		{
			name: "non-reentrant synchronizer held by its own waiter",
			dump: thread.Dump{SynchronizerOwners: true, Threads: []thread.Snapshot{
				th("self", 3, parks(mutex), holds(mutex, -1)),
			}},
			cycles: []string{"self"},
		},
		{
			name: "a monitor its waiter holds is an inconsistent line, not a deadlock",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("odd", 3, enters(monitorA), holds(monitorA, 2)),
				th("other", 3, enters(monitorA)),
			}},
		},
		{
			name: "two deadlocks, in dump order",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("y1", 2, enters(monitorD), holds(monitorC, 1)),
				th("x1", 2, enters(monitorB), holds(monitorA, 1)),
				th("x2", 2, enters(monitorA), holds(monitorB, 1)),
				th("y2", 2, enters(monitorC), holds(monitorD, 1)),
			}},
			cycles: []string{"y1>y2", "x1>x2"},
		},
		{
			name: "raw monitors",
			dump: thread.Dump{Threads: []thread.Snapshot{
				th("agent", 1, enters(monitorA), holds(raw, -1)),
				th("app", 1, enters(raw), holds(monitorA, 0)),
			}},
			cycles: []string{"agent>app"},
		},
		{
			name: "an owner claimed twice: the thread outside Object.wait owns it",
			dump: thread.Dump{Threads: []thread.Snapshot{
				waitingThread("stale", holds(monitorA, 2), holds(monitorB, 2)),
				th("real", 2, enters(monitorB), holds(monitorA, 1)),
			}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := threads.FindDeadlocks(&c.dump)
			if got := cycles(r); !slices.Equal(got, c.cycles) {
				t.Errorf("deadlocks %q, want %q", got, c.cycles)
			}
			if got := blocked(r.BlockedBehind); !slices.Equal(got, c.behind) {
				t.Errorf("blocked behind %q, want %q", got, c.behind)
			}
			if got := blocked(r.OwnerUnknown); !slices.Equal(got, c.ownerUnknown) {
				t.Errorf("owner unknown %q, want %q", got, c.ownerUnknown)
			}
		})
	}
}

// TestBlockedBehindDeadlock divides the threads blocked behind two
// deadlocks by deadlock, each in BlockedBehind's order.
func TestBlockedBehindDeadlock(t *testing.T) {
	r := threads.FindDeadlocks(&thread.Dump{Threads: []thread.Snapshot{
		th("y1", 2, enters(monitorD), holds(monitorC, 1)),
		th("behind-x", 1, enters(monitorA)),
		th("x1", 2, enters(monitorB), holds(monitorA, 1)),
		th("x2", 2, enters(monitorA), holds(monitorB, 1)),
		th("y2", 2, enters(monitorC), holds(monitorD, 1)),
		th("behind-y", 1, enters(monitorD)),
	}})
	if got := cycles(r); !slices.Equal(got, []string{"y1>y2", "x1>x2"}) {
		t.Fatalf("deadlocks %q, want y1>y2 and x1>x2", got)
	}
	for k, want := range [][]string{{"behind-y->y2"}, {"behind-x->x1"}} {
		if got := blocked(r.BlockedBehindDeadlock(k)); !slices.Equal(got, want) {
			t.Errorf("blocked behind deadlock %d: %q, want %q", k, got, want)
		}
	}
	if got := r.BlockedBehindDeadlock(2); got != nil {
		t.Errorf("blocked behind a deadlock that is not there: %q", blocked(got))
	}
}

// waitingThread is a thread blocked in Object.wait() (top frame), which a
// JSON dump shows holding the monitors of its lower frames.
func waitingThread(name string, locks ...thread.LockUse) thread.Snapshot {
	t := th(name, 3, locks...)
	t.Frames[0] = thread.Frame{Class: "java.lang.Object", Method: "wait0", Line: thread.LineNative}
	return t
}

// TestDeadlockStacks checks how much of each stack a deadlock shows: down
// to the deepest frame waiting for or holding a lock of the cycle, or the
// whole stack when a lock of the cycle is tied to no frame.
func TestDeadlockStacks(t *testing.T) {
	d := thread.Dump{SynchronizerOwners: true, Threads: []thread.Snapshot{
		th("t1", 6, enters(monitorB), holds(monitorC, 1), holds(monitorA, 3)),
		th("t2", 5, enters(monitorA), holds(monitorB, 2)),
		th("t3", 4, enters(monitorD), holds(reentrant, -1)),
		th("t4", 4, parks(reentrant), holds(monitorD, 1)),
	}}
	r := threads.FindDeadlocks(&d)
	if len(r.Deadlocks) != 2 {
		t.Fatalf("deadlocks %q", cycles(r))
	}
	for _, c := range []struct {
		deadlock, thread, frames int
	}{
		{0, 0, 4}, // t1: holds A, which t2 waits for, in frame 3
		{0, 1, 3}, // t2: holds B in frame 2
		{1, 0, 4}, // t3: owns the ReentrantLock t4 waits for, no frame known
		{1, 1, 2}, // t4: holds D in frame 1
	} {
		dt := r.Deadlocks[c.deadlock].Threads[c.thread]
		if len(dt.Frames) != c.frames {
			t.Errorf("%s: %d frames shown, want %d", dt.Name, len(dt.Frames), c.frames)
		}
		for _, l := range dt.Locks {
			if l.Frame >= len(dt.Frames) {
				t.Errorf("%s: lock line of frame %d, beyond the frames shown", dt.Name, l.Frame)
			}
		}
	}
	want := threads.LockRef{Kind: "monitor", Class: "demo.A", ID: "0xa0"}
	if got := r.Deadlocks[0].Threads[1].WaitingFor; got != want {
		t.Errorf("t2 waits for %+v, want %+v", got, want)
	}
	if got := r.Deadlocks[0].Threads[0].Frames[0]; got != "demo.Code.f0(Code.java:10)" {
		t.Errorf("frame rendered %q", got)
	}
}

// TestDeadlockVerdict takes the worst finding of several reports,
// whatever their order.
func TestDeadlockVerdict(t *testing.T) {
	none := threads.DeadlockReport{Source: "none"}
	possible := threads.DeadlockReport{Source: "possible", PossibleDeadlocks: []threads.PossibleDeadlock{{}}}
	deadlock := threads.DeadlockReport{Source: "deadlock", Deadlocks: []threads.Deadlock{{}}}
	for _, c := range []struct {
		reports []threads.DeadlockReport
		want    threads.Verdict
	}{
		{nil, threads.NoDeadlockFound},
		{[]threads.DeadlockReport{none, none}, threads.NoDeadlockFound},
		{[]threads.DeadlockReport{none, possible}, threads.OnlyPossibleDeadlocks},
		{[]threads.DeadlockReport{possible, deadlock, none}, threads.DeadlockFound},
		{[]threads.DeadlockReport{deadlock, possible}, threads.DeadlockFound},
	} {
		var names []string
		for _, r := range c.reports {
			names = append(names, r.Source)
		}
		if got := threads.DeadlockVerdict(c.reports); got != c.want {
			t.Errorf("DeadlockVerdict(%v) = %v, want %v", names, got, c.want)
		}
	}
}
