package report

import (
	stdbytes "bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressNamesPhase: after the read, the bar names the phase under
// way and estimates the time left from the share of the work done; while
// reading it shows the bytes and the time left to read.
func TestProgressNamesPhase(t *testing.T) {
	var out stdbytes.Buffer
	p := &Progress{w: &out, total: 100, done: func() int64 { return 50 }, started: time.Now().Add(-10 * time.Second)}
	p.draw("reading heap.hprof")
	if got := out.String(); !strings.Contains(got, "50%") || !strings.Contains(got, "about 10s left to read") {
		t.Errorf("reading: %q, want 50%% and about 10s left to read", got)
	}
	out.Reset()
	p.Phase("semidominators", 0.5)
	// The phases before took half the work in 10 s: about 10 s are left.
	p.draw("reading heap.hprof")
	if got := out.String(); !strings.Contains(got, "semidominators 0s, about 10s left") {
		t.Errorf("phase: %q, want the phase and about 10s left", got)
	}
}
