package profile

import (
	"testing"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// hprofTestTimes is the CPU TIME of the shared corpus's
// AngiWANG_Java-program-performance-optimize/java.hprof.txt as the agent
// printed it: "CPU TIME (ms) BEGIN (total = 11033)", its three traces with
// their shares and calls, and their frames (HProfTest.slowerMethod sleeps
// ten times as long as slowMethod, each called once by main).
func hprofTestTimes() *model.Profile {
	frame := func(class, method, file string) thread.Frame {
		return thread.Frame{Class: class, Method: method, File: file, Line: thread.LineUnknown}
	}
	main := frame("javatuning.ch6.toolscheck.HProfTest", "main", "HProfTest.java")
	run := frame("java.io.FilePermission$1", "run", "FilePermission.java")
	return &model.Profile{
		Traces: []model.Trace{
			{Serial: 301009, Frames: []thread.Frame{frame("javatuning.ch6.toolscheck.HProfTest", "slowerMethod", "HProfTest.java"), main}},
			{Serial: 301008, Frames: []thread.Frame{frame("javatuning.ch6.toolscheck.HProfTest", "slowMethod", "HProfTest.java"), main}},
			{Serial: 300793, Frames: []thread.Frame{run, run,
				frame("java.io.FilePermission", "init", "FilePermission.java"), frame("java.io.FilePermission", "<init>", "FilePermission.java")}},
		},
		CPU: &model.CPUTable{Times: true, Total: 11033, Rows: []model.CPURow{
			{Trace: 301009, Count: 1, Self: 90.65}, {Trace: 301008, Count: 1, Self: 9.06}, {Trace: 300793, Count: 2, Self: 0.02}}},
	}
}

// TestCPUMilliseconds reconstructs each trace's time from the agent's
// printed share and total: 90.65% of 11033 ms is 10001.4 ms, 9.06% is
// 999.6 ms (the ten to one of the two sleeps), 0.02% is 2.2 ms.
func TestCPUMilliseconds(t *testing.T) {
	r, err := CPU(hprofTestTimes(), CPUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]int64{301009: 10001, 301008: 1000, 300793: 2}
	for _, tr := range r.Rows {
		if got := r.Milliseconds(tr); got != want[tr.Trace] {
			t.Errorf("trace %d: %d ms, want %d", tr.Trace, got, want[tr.Trace])
		}
	}
	if len(r.Rows) != 3 || r.Rows[2].CumPercent != 90.65+9.06+0.02 {
		t.Errorf("rows %+v, want 3 adding up to the agent's accum 99.73%%", r.Rows)
	}
}

// TestCPUCallTree merges the three traces: main calls slowMethod and
// slowerMethod once each (2 of the 4 calls), FilePermission.<init> calls
// init, which calls run, which calls itself (the other 2); equal counts
// are ordered by name.
func TestCPUCallTree(t *testing.T) {
	r, err := CPU(hprofTestTimes(), CPUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := r.CallTree(func(f threads.StackFrame) string { return f.Method })
	type node struct {
		name    string
		count   int64
		percent float64
		callees int
	}
	var got []node
	var walk func(n *CallNode)
	walk = func(n *CallNode) {
		got = append(got, node{n.Name, n.Count, n.Percent, len(n.Callees)})
		for _, c := range n.Callees {
			walk(c)
		}
	}
	walk(root)
	want := []node{
		{"", 4, 100, 2},
		{"java.io.FilePermission.<init>", 2, 50, 1},
		{"java.io.FilePermission.init", 2, 50, 1},
		{"java.io.FilePermission$1.run", 2, 50, 1},
		{"java.io.FilePermission$1.run", 2, 50, 0},
		{"javatuning.ch6.toolscheck.HProfTest.main", 2, 50, 2},
		{"javatuning.ch6.toolscheck.HProfTest.slowMethod", 1, 25, 0},
		{"javatuning.ch6.toolscheck.HProfTest.slowerMethod", 1, 25, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("tree %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("node %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if empty := (CPUReport{}).CallTree(func(f threads.StackFrame) string { return f.Method }); empty.Count != 0 || empty.Percent != 0 || len(empty.Callees) != 0 {
		t.Errorf("the tree of no trace is %+v, want an empty root", empty)
	}
}
