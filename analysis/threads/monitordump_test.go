package threads

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// loadAgentFixture reads a synthetic agent file of testdata/threads.
func loadAgentFixture(t *testing.T, name string) *model.Profile {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "threads", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := model.LoadASCII(f, name, -1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshotNamed returns the thread of d named name.
func snapshotNamed(t *testing.T, d *thread.Dump, name string) *thread.Snapshot {
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
	left := thread.Lock{Kind: thread.LockMonitor, Class: "Cycle$Left", Name: "MONITOR DUMP entry 1"}
	right := thread.Lock{Kind: thread.LockMonitor, Class: "Cycle$Right", Name: "MONITOR DUMP entry 2"}
	hl := snapshotNamed(t, d, "holder-left")
	if !hl.Owns(left) || hl.Owns(right) || hl.State != "BLOCKED" || hl.ID != "200002" {
		t.Errorf("holder-left: %+v", hl)
	}
	if w := hl.Waits(); len(w) != 1 || w[0].Lock != right || w[0].Action != thread.Enters {
		t.Errorf("holder-left waits for %+v, want to enter %+v", w, right)
	}
	if hr := snapshotNamed(t, d, "holder-right"); !hr.Owns(right) || len(hr.Waits()) != 1 || hr.Waits()[0].Lock != left {
		t.Errorf("holder-right: %+v", hr)
	}
	nw := snapshotNamed(t, d, "notified-waiter")
	if len(nw.Waits()) != 0 || len(nw.Locks) != 1 || nw.Locks[0] != (thread.LockUse{Lock: right, Action: thread.WaitsOn, Frame: -1}) {
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
	raw := thread.Lock{Kind: thread.LockRawMonitor, ID: 0x8092a10, Name: "cycle_lock"}
	guard := thread.Lock{Kind: thread.LockMonitor, Class: "Cycle$Guard", ID: 0x6f2000}
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
	if d := MonitorDumpThreads(&model.Profile{}); d != nil {
		t.Errorf("no MONITOR DUMP gave %+v", d)
	}
}
