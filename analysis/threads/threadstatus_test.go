package threads

import "testing"

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
		state, detail := threadStatusState(c.status)
		if state != c.state || detail != c.detail {
			t.Errorf("%#x: %s %q, want %s %q", c.status, state, detail, c.state, c.detail)
		}
	}
}

// jvmtiSpec holds the JVMTI_THREAD_STATE_* bits as the JVMTI specification
// documents them (GetThreadState).
var jvmtiSpec = struct {
	Alive, Terminated, Runnable, BlockedOnMonitorEnter, Waiting, WaitingIndefinitely,
	WaitingWithTimeout, Sleeping, InObjectWait, Parked, Suspended, Interrupted, InNative uint32
}{
	Alive: 0x0001, Terminated: 0x0002, Runnable: 0x0004, BlockedOnMonitorEnter: 0x0400, Waiting: 0x0080,
	WaitingIndefinitely: 0x0010, WaitingWithTimeout: 0x0020, Sleeping: 0x0040, InObjectWait: 0x0100,
	Parked: 0x0200, Suspended: 0x100000, Interrupted: 0x200000, InNative: 0x400000,
}

// TestJVMTIStateBits checks the decoder's named bits against the
// specification's values.
func TestJVMTIStateBits(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, spec uint32
	}{
		{"ALIVE", jvmtiAlive, jvmtiSpec.Alive},
		{"TERMINATED", jvmtiTerminated, jvmtiSpec.Terminated},
		{"RUNNABLE", jvmtiRunnable, jvmtiSpec.Runnable},
		{"WAITING_INDEFINITELY", jvmtiWaitingIndefinitely, jvmtiSpec.WaitingIndefinitely},
		{"WAITING_WITH_TIMEOUT", jvmtiWaitingWithTimeout, jvmtiSpec.WaitingWithTimeout},
		{"SLEEPING", jvmtiSleeping, jvmtiSpec.Sleeping},
		{"PARKED", jvmtiParked, jvmtiSpec.Parked},
		{"BLOCKED_ON_MONITOR_ENTER", jvmtiBlockedOnMonitorEnter, jvmtiSpec.BlockedOnMonitorEnter},
	} {
		if c.got != c.spec {
			t.Errorf("JVMTI_THREAD_STATE_%s: %#x, the specification says %#x", c.name, c.got, c.spec)
		}
	}
}

// TestThreadStatusStateSpec decodes the state words the JVMTI
// specification composes for each java.lang.Thread.State (its table of
// JVMTI_JAVA_LANG_THREAD_STATE_* and the bits each wait sets), built here
// from the documented bit values. The heap fixture tests expect the
// parked threads of testdata/threads/heap and testdata/jvm to read as
// WAITING (parking): ALIVE|WAITING|WAITING_INDEFINITELY|PARKED.
func TestThreadStatusStateSpec(t *testing.T) {
	s := jvmtiSpec
	for _, c := range []struct {
		what          string
		status        uint32
		state, detail string
	}{
		{"new", 0, "NEW", ""},
		{"terminated", s.Terminated, "TERMINATED", ""},
		{"runnable", s.Alive | s.Runnable, "RUNNABLE", ""},
		{"runnable in native, suspended, interrupted", s.Alive | s.Runnable | s.InNative | s.Suspended | s.Interrupted, "RUNNABLE", ""},
		{"blocked entering a monitor", s.Alive | s.BlockedOnMonitorEnter, "BLOCKED", "on object monitor"},
		{"Object.wait()", s.Alive | s.Waiting | s.WaitingIndefinitely | s.InObjectWait, "WAITING", "on object monitor"},
		{"Object.wait(ms)", s.Alive | s.Waiting | s.WaitingWithTimeout | s.InObjectWait, "TIMED_WAITING", "on object monitor"},
		{"LockSupport.park", s.Alive | s.Waiting | s.WaitingIndefinitely | s.Parked, "WAITING", "parking"},
		{"LockSupport.parkNanos", s.Alive | s.Waiting | s.WaitingWithTimeout | s.Parked, "TIMED_WAITING", "parking"},
		{"Thread.sleep", s.Alive | s.Waiting | s.WaitingWithTimeout | s.Sleeping, "TIMED_WAITING", "sleeping"},
	} {
		state, detail := threadStatusState(c.status)
		if state != c.state || detail != c.detail {
			t.Errorf("%s (%#x): %s %q, want %s %q", c.what, c.status, state, detail, c.state, c.detail)
		}
	}
}
