package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
)

// tiedLocks are the two locks of a monitor deadlock tied to a heap dump
// of the same moment: one held in a static field and by a thread's frame,
// one at an address where the heap dump holds no object.
func tiedLocks() []threads.HeapLock {
	return []threads.HeapLock{
		{Lock: threads.LockRef{Kind: "monitor", Class: "threads.MonitorPair$Left", ID: "0x7ff001230"}, Class: "threads.MonitorPair$Left",
			Paths: []heap.RetainerPath{
				{RootKind: "sticky-class", Chain: []heap.PathStep{
					{ObjectID: "0x7ff000000", Class: "threads.MonitorPair"},
					{ObjectID: "0x7ff001230", Class: "threads.MonitorPair$Left", Via: "static LEFT"},
				}},
				{RootKind: "java-frame", RootThread: `pair "b"`, RootFrame: "threads.MonitorPair.b(MonitorPair.java:31)", Chain: []heap.PathStep{
					{ObjectID: "0x7ff001230", Class: "threads.MonitorPair$Left"},
				}},
			}},
		{Lock: threads.LockRef{Kind: "monitor", Class: "threads.MonitorPair$Right", ID: "0x7ff004560"}, Paths: []heap.RetainerPath{}},
	}
}

func TestHeapLocksGolden(t *testing.T) {
	out := renderGolden(t, "heaplocks", []variant{asTable, asJSON}, func(w io.Writer, o Options) error {
		return DeadlocksWithHeapLocks(w, nil, "pair.hprof.gz", tiedLocks(), o)
	})
	wantLines(t, "table", out["table"], "",
		"Locks of the deadlocks in the heap dump pair.hprof.gz:",
		"  0x7ff001230 threads.MonitorPair$Left",
		"    retained by: sticky-class -> threads.MonitorPair 0x7ff000000 -> .static LEFT threads.MonitorPair$Left 0x7ff001230",
		`    retained by: java-frame of thread "pair \"b\"" at threads.MonitorPair.b(MonitorPair.java:31) -> threads.MonitorPair$Left 0x7ff001230`,
		"  0x7ff004560: no object at this address in the heap dump")
	var back struct {
		Reports  []threads.DeadlockReport `json:"reports"`
		HeapDump string                   `json:"heap_dump"`
		Locks    []threads.HeapLock       `json:"heap_locks"`
	}
	decodeJSON(t, out["json"], &back)
	if back.HeapDump != "pair.hprof.gz" || back.Reports == nil || len(back.Locks) != 2 || len(back.Locks[0].Paths) != 2 || back.Locks[1].Class != "" || back.Locks[0].Paths[1].RootThread != `pair "b"` {
		t.Errorf("JSON decodes to %+v", back)
	}
	var csv strings.Builder
	if err := DeadlocksWithHeapLocks(&csv, nil, "pair.hprof.gz", tiedLocks(), Options{Format: CSV}); err != nil || strings.Count(csv.String(), "\n") != 1 {
		t.Errorf("CSV wrote %q, %v; want the reports' header alone", csv.String(), err)
	}
}
