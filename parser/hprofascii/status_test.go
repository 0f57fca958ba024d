package hprofascii_test

import (
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// TestThreadState maps every status code docs/hprof-ascii.md lists to its
// java.lang.Thread.State name; UN, an empty status and codes the agent
// never writes have none.
func TestThreadState(t *testing.T) {
	for code, want := range map[string]string{
		hprofascii.StatusRunnable: "RUNNABLE", hprofascii.StatusMonitorWait: "BLOCKED",
		hprofascii.StatusCondvarWait: "WAITING", hprofascii.StatusSleeping: "TIMED_WAITING",
		hprofascii.StatusTerminated: "TERMINATED", hprofascii.StatusNotStarted: "NEW",
		hprofascii.StatusUnknown: "", "": "", "XX": "", "r": "",
	} {
		if got := hprofascii.ThreadState([]byte(code)); got != want {
			t.Errorf("ThreadState(%q) = %q, want %q", code, got, want)
		}
	}
}

// TestMonitorThreadStatus reads the flags and the state code of MONITOR
// DUMP thread lines in the agent's two forms.
func TestMonitorThreadStatus(t *testing.T) {
	src := "JAVA PROFILE 1.0.1, created Mon Jan  1 00:00:00 2024\n\n" +
		"MONITOR DUMP BEGIN\n" +
		"    THREAD 200001, trace 300001, status: S|intr|native|MW\n" +
		"    THREAD 200002, trace 300002, status: CW\n" +
		"    THREAD 200003, trace 300003, status: \n" +
		"MONITOR DUMP END\n"
	r, err := hprofascii.NewReader(strings.NewReader(src), hprofascii.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type thread struct {
		suspended, interrupted, inNative bool
		state                            string
	}
	var got []thread
	for r.Next() {
		if rec := r.Record(); rec.Kind == hprofascii.KindMonitorDumpThread {
			v := rec.MonitorThread
			got = append(got, thread{v.Suspended, v.Interrupted, v.InNative, hprofascii.ThreadState(v.State)})
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := []thread{{true, true, true, "BLOCKED"}, {false, false, false, "WAITING"}, {false, false, false, ""}}
	if len(got) != len(want) {
		t.Fatalf("%d thread lines read, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("thread line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
