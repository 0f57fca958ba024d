package model

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// loadAgentFixture reads a synthetic agent file of testdata/threads.
func loadAgentFixture(t *testing.T, name string) *Profile {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "threads", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := LoadASCII(f, name, -1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshotNamed returns the thread of d named name.
func snapshotNamed(t *testing.T, d *threaddump.ThreadDump, name string) *threaddump.ThreadSnapshot {
	t.Helper()
	for i := range d.Threads {
		if d.Threads[i].Name == name {
			return &d.Threads[i]
		}
	}
	t.Fatalf("no thread %q", name)
	return nil
}

// TestMonitorDumpThreadsJVMTI checks the JVMTI fixture as agent-gen.sh
// writes it: holder-left owns Cycle$Left and waits to enter Cycle$Right,
// holder-right the reverse, notified-waiter waits to be notified on
// Cycle$Right; the two monitors carry no id, so they are told apart by
// their entry number.
func TestMonitorDumpThreadsJVMTI(t *testing.T) {
	d := MonitorDumpThreads(loadAgentFixture(t, "agent-jvmti-monitor-cycle.hprof.txt"))
	if d == nil || len(d.Threads) != 4 {
		t.Fatalf("dump %+v, want 4 threads", d)
	}
	left := threaddump.Lock{Kind: threaddump.LockMonitor, Class: "Cycle$Left", Name: "MONITOR DUMP entry 1"}
	right := threaddump.Lock{Kind: threaddump.LockMonitor, Class: "Cycle$Right", Name: "MONITOR DUMP entry 2"}
	hl := snapshotNamed(t, d, "holder-left")
	if !hl.Owns(left) || hl.Owns(right) || hl.State != "BLOCKED" || hl.ID != "200002" {
		t.Errorf("holder-left: %+v", hl)
	}
	if w := hl.Waits(); len(w) != 1 || w[0].Lock != right || w[0].Action != threaddump.Enters {
		t.Errorf("holder-left waits for %+v, want to enter %+v", w, right)
	}
	if hr := snapshotNamed(t, d, "holder-right"); !hr.Owns(right) || len(hr.Waits()) != 1 || hr.Waits()[0].Lock != left {
		t.Errorf("holder-right: %+v", hr)
	}
	nw := snapshotNamed(t, d, "notified-waiter")
	if len(nw.Waits()) != 0 || len(nw.Locks) != 1 || nw.Locks[0] != (threaddump.ThreadLock{Lock: right, Action: threaddump.WaitsOn, Frame: -1}) {
		t.Errorf("notified-waiter: %+v", nw.Locks)
	}
	if nw.State != "WAITING" || len(nw.Frames) != 2 || nw.Frames[0].Method != "wait" {
		t.Errorf("notified-waiter: state %q, frames %+v", nw.State, nw.Frames)
	}
	if m := snapshotNamed(t, d, "main"); m.State != "TIMED_WAITING" || len(m.Locks) != 0 {
		t.Errorf("main: %+v", m)
	}
}

// TestMonitorDumpThreadsJVMPI checks the JVMPI fixture: raw-holder owns
// the raw monitor cycle_lock (0x8092a10) and waits to enter the Cycle$Guard
// at 0x6f2000, which java-holder owns while waiting to enter cycle_lock.
func TestMonitorDumpThreadsJVMPI(t *testing.T) {
	d := MonitorDumpThreads(loadAgentFixture(t, "agent-jvmpi-monitor-cycle.hprof.txt"))
	if d == nil || len(d.Threads) != 4 {
		t.Fatalf("dump %+v, want 4 threads", d)
	}
	raw := threaddump.Lock{Kind: threaddump.LockRawMonitor, ID: 0x8092a10, Name: "cycle_lock"}
	guard := threaddump.Lock{Kind: threaddump.LockMonitor, Class: "Cycle$Guard", ID: 0x6f2000}
	rh, jh := snapshotNamed(t, d, "raw-holder"), snapshotNamed(t, d, "java-holder")
	if !rh.Owns(raw) || len(rh.Waits()) != 1 || rh.Waits()[0].Lock != guard {
		t.Errorf("raw-holder: %+v", rh.Locks)
	}
	if !jh.Owns(guard) || len(jh.Waits()) != 1 || jh.Waits()[0].Lock != raw {
		t.Errorf("java-holder: %+v", jh.Locks)
	}
	if nw := snapshotNamed(t, d, "notified-waiter"); len(nw.Waits()) != 0 {
		t.Errorf("notified-waiter waits for %+v", nw.Waits())
	}
}

func TestMonitorDumpThreadsNone(t *testing.T) {
	if d := MonitorDumpThreads(&Profile{}); d != nil {
		t.Errorf("no MONITOR DUMP gave %+v", d)
	}
}

// TestThreadStatusState maps JVMTI state words as the JVMTI specification
// composes them (GetThreadState) to the states java.lang.Thread reports.
func TestThreadStatusState(t *testing.T) {
	for _, c := range []struct {
		status        uint32
		state, detail string
	}{
		{0x0000, "NEW", ""},
		{0x0002, "TERMINATED", ""},
		{0x0005, "RUNNABLE", ""},
		{0x0401, "BLOCKED", "on object monitor"},
		{0x0191, "WAITING", "on object monitor"},
		{0x0291, "WAITING", "parking"},
		{0x02a1, "TIMED_WAITING", "parking"},
		{0x00e1, "TIMED_WAITING", "sleeping"},
		{0x400005, "RUNNABLE", ""},
	} {
		state, detail := ThreadStatusState(c.status)
		if state != c.state || detail != c.detail {
			t.Errorf("%#x: %s %q, want %s %q", c.status, state, detail, c.state, c.detail)
		}
	}
}

// TestReadHeapLocks reads the heap dump LockPair's process wrote right after
// its jstack -l dump (testdata/threads): lock-a parks on the synchronizer
// the JVM printed lock-a "parking to wait for" and lock-b owns it, and the
// reverse; both threads are WAITING (parking), as jstack printed them.
func TestReadHeapLocks(t *testing.T) {
	dir := filepath.Join("..", "testdata", "threads")
	path := filepath.Join(dir, "heap", "jdk17-lock-pair.hprof.gz")
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Load(f, LoadOptions{Dump: -1, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	attachDump(t, h, path)
	hl, err := ReadHeapLocks(h)
	if err != nil {
		t.Fatal(err)
	}
	if !hl.StatesKnown || hl.MonitorRoots != 0 || !hl.Dump.SynchronizerOwners {
		t.Errorf("states known %v, monitor roots %d, owners %v", hl.StatesKnown, hl.MonitorRoots, hl.Dump.SynchronizerOwners)
	}
	parking := jstackParking(t, filepath.Join(dir, "jdk17-lock-pair.jstack.txt"))
	for name, other := range map[string]string{"lock-a": "lock-b", "lock-b": "lock-a"} {
		th := snapshotNamed(t, hl.Dump, name)
		if th.State != "WAITING" || th.StateDetail != "parking" {
			t.Errorf("%s: %s (%s), want WAITING (parking)", name, th.State, th.StateDetail)
		}
		w := th.Waits()
		if len(w) != 1 || w[0].Action != threaddump.Parks || w[0].Lock.ID != parking[name] || w[0].Lock.Kind != threaddump.LockSynchronizer {
			t.Fatalf("%s waits for %+v, jstack: parking on %#x", name, w, parking[name])
		}
		if !snapshotNamed(t, hl.Dump, other).Owns(w[0].Lock) {
			t.Errorf("%s does not own %+v", other, w[0].Lock)
		}
	}
}

// jstackParking reads the address each thread of a jstack dump is
// "parking to wait for", from its first stack.
func jstackParking(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^"([^"]+)" #\d+[^\n]*\n(?:[^\n]+\n)*?\t- parking to wait for  <0x([0-9a-f]+)>`)
	out := map[string]uint64{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		if _, seen := out[m[1]]; !seen {
			out[m[1]], _ = strconv.ParseUint(m[2], 16, 64)
		}
	}
	return out
}

// TestReadHeapLocksLatch reads the heap fixtures of testdata/jvm on JDK 17
// (Thread.threadStatus) and JDK 25 (Thread.holder.threadStatus): the
// thread "fixture-holder" awaits a CountDownLatch nobody counts down
// (StackHolder.java), so it is WAITING, parked on the latch's Sync, which
// has no owner.
func TestReadHeapLocksLatch(t *testing.T) {
	for _, name := range []string{"jdk17-default.hprof.gz", "jdk25-default.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			h := loadFixture(t, name)
			hl, err := ReadHeapLocks(h)
			if err != nil {
				t.Fatal(err)
			}
			th := snapshotNamed(t, hl.Dump, "fixture-holder")
			if th.State != "WAITING" || th.StateDetail != "parking" {
				t.Errorf("fixture-holder: %s (%s), want WAITING (parking)", th.State, th.StateDetail)
			}
			w := th.Waits()
			if len(w) != 1 || w[0].Lock.Class != "java.util.concurrent.CountDownLatch$Sync" {
				t.Fatalf("fixture-holder waits for %+v", w)
			}
			for _, o := range hl.Dump.Threads {
				if o.Owns(w[0].Lock) {
					t.Errorf("%s owns the latch", o.Name)
				}
			}
		})
	}
}
