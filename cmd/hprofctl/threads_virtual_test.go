package main

import (
	"path/filepath"
	"testing"
)

// TestVirtualThreadStates reads the JDK 25 heap dump of Virtual.java,
// whose virtual threads wait in known states by construction (the program
// waits for Thread.getState to report them before READY): their states
// come from VirtualThread.state, mapped through the class's own state
// constants. The platform thread guard-holder keeps its threadStatus state.
func TestVirtualThreadStates(t *testing.T) {
	dump := filepath.Join(threadsDir(t), "heap", "jdk25-virtual.hprof.gz")
	var rows []struct {
		Name  string `json:"name"`
		State string `json:"state"`
	}
	runJSON(t, &rows, "threads", dump)
	got := map[string]string{}
	for _, r := range rows {
		got[r.Name] = r.State
	}
	for name, want := range map[string]string{
		"virtual-parked": "WAITING", "virtual-sleeping": "TIMED_WAITING", "virtual-waiting": "WAITING",
		"virtual-blocked": "BLOCKED", "guard-holder": "TIMED_WAITING",
	} {
		if got[name] != want {
			t.Errorf("%s: state %q, want %q", name, got[name], want)
		}
	}
	if r := runVerdict(t, dump); r.Verdict != "no_deadlock" {
		t.Errorf("one thread BLOCKED on a monitor a sleeping thread holds: verdict %q, evidence %q", r.Verdict, r.Evidence)
	}
}
