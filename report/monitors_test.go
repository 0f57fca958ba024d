package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
)

// contended is a MONITOR TIME section as profile.Monitors reads it.
var contended = []profile.ContendedMonitor{
	{Rank: 1, Monitor: "java.lang.Object@0x7c0010000", SelfPercent: 66.67, CumPercent: 66.67, Count: 2, Trace: 300201, Thread: "worker-2 (200004)",
		Frames: []threads.StackFrame{{Method: "app.Guard.enter", File: "Guard.java", Line: 14}}},
	{Rank: 2, Monitor: "raw monitor «jvmpi» lock", SelfPercent: 33.33, CumPercent: 100, Count: 1, Trace: 300202, Frames: []threads.StackFrame{}},
}

// monitorDump is a MONITOR DUMP as profile.Monitors reads it.
var monitorDump = []profile.MonitorRow{
	{Monitor: "app.Guard@0x7c0010000", Owner: "worker-1", EntryCount: 2, WaitingToEnter: []string{"worker-2", "worker, \"3\""}, WaitingToBeNotified: []string{}},
	{Monitor: "raw monitor app_lock", Owner: "", EntryCount: 0, WaitingToEnter: []string{}, WaitingToBeNotified: []string{"idle"}},
}

func TestMonitorsGolden(t *testing.T) {
	r := profile.MonitorsReport{TotalMS: 3_000_000_000, TotalMSMax: 3_000_000_000, Contended: contended, MonitorDumps: 1, Monitors: monitorDump}
	out := renderGolden(t, "monitors", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Monitors(w, r, o) })
	wantLines(t, "table", out["table"], "MONITOR TIME: 3,000,000,000 ms of contention", "MONITOR DUMP:", "#1 java.lang.Object@0x7c0010000, trace 300201:")
	recs := readCSV(t, out["csv"])
	if len(recs) != 3 || strings.Join(recs[0], ",") != "monitor,owner,entry_count,waiting_to_enter,waiting_to_be_notified" {
		t.Fatalf("with a MONITOR DUMP, CSV has its monitors: %q", recs)
	}
	if recs[1][3] != `worker-2, worker, "3"` || recs[2][4] != "idle" {
		t.Errorf("CSV %q", recs)
	}
	var back profile.MonitorsReport
	decodeJSON(t, out["json"], &back)
	if back.TotalMS != 3_000_000_000 || len(back.Contended) != 2 || len(back.Monitors) != 2 || back.Monitors[0].WaitingToEnter[1] != `worker, "3"` {
		t.Errorf("JSON decodes to %+v", back)
	}
}

func TestMonitorsTimeOnlyGolden(t *testing.T) {
	r := profile.MonitorsReport{TotalMS: 1_000_000, TotalMSMax: 1_999_999, Contended: contended, Monitors: []profile.MonitorRow{}}
	out := renderGolden(t, "monitors-time", []variant{asTable, asCSV}, func(w io.Writer, o Options) error { return Monitors(w, r, o) })
	if strings.Contains(out["table"], "MONITOR DUMP") {
		t.Errorf("no MONITOR DUMP expected:\n%s", out["table"])
	}
	wantLines(t, "table", out["table"], "MONITOR TIME: 1,000,000 to 1,999,999 ms of contention (the agent printed its total divided by 10^6)")
	if recs := readCSV(t, out["csv"]); len(recs) != 3 || strings.Join(recs[0], ",") != "rank,self_percent,cumulative_percent,count,trace,thread,monitor" || recs[1][5] != "worker-2 (200004)" || recs[2][6] != "raw monitor «jvmpi» lock" {
		t.Errorf("without a MONITOR DUMP, CSV has the contended monitors: %q", recs)
	}
}

func TestMonitorsDumpOnlyGolden(t *testing.T) {
	r := profile.MonitorsReport{Contended: []profile.ContendedMonitor{}, MonitorDumps: 1, Monitors: monitorDump}
	out := renderGolden(t, "monitors-dump", []variant{asTable}, func(w io.Writer, o Options) error { return Monitors(w, r, o) })
	if !strings.HasPrefix(out["table"], "MONITOR DUMP:\n") {
		t.Errorf("no MONITOR TIME: the table starts with MONITOR DUMP, want\n%s", out["table"])
	}
	idle := profile.MonitorsReport{Contended: []profile.ContendedMonitor{}, MonitorDumps: 2, MonitorDump: 1, Monitors: []profile.MonitorRow{}}
	out = renderGolden(t, "monitors-dump-idle", []variant{asTable}, func(w io.Writer, o Options) error { return Monitors(w, idle, o) })
	if out["table"] != "MONITOR DUMP 2 of 2:\nno monitor in use\n" {
		t.Errorf("a MONITOR DUMP with no monitor in use: %q", out["table"])
	}
}

func TestMonitorsEmptyGolden(t *testing.T) {
	r := profile.MonitorsReport{Contended: []profile.ContendedMonitor{}, Monitors: []profile.MonitorRow{}}
	out := renderGolden(t, "monitors-empty", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Monitors(w, r, o) })
	if out["table"] != "no contended monitor and no monitor in use\n" {
		t.Errorf("table %q, want the line saying no monitor", out["table"])
	}
	if out["csv"] != "rank,self_percent,cumulative_percent,count,trace,thread,monitor\n" {
		t.Errorf("CSV %q, want the header alone", out["csv"])
	}
}
