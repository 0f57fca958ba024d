package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// runDeadlocksStderr runs `hprofctl deadlocks` with args and returns its
// standard output and standard error.
func runDeadlocksStderr(t *testing.T, args ...string) (string, string) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"deadlocks"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("hprofctl deadlocks %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String()
}

// TestDeadlocksHeapDumpMatchesJVM reads the heap dump LockPair's process
// wrote right after its jstack -l dump: the ReentrantLock cycle found from
// the heap alone must be the one the JVM reported in the thread dump,
// thread names, synchronizer classes and addresses included (GC.heap_dump
// -all runs no GC, so objects keep their addresses). The busy program's
// heap dump, taken the same way, has no deadlock.
func TestDeadlocksHeapDumpMatchesJVM(t *testing.T) {
	for _, program := range []string{"lock-pair", "busy"} {
		t.Run(program, func(t *testing.T) {
			dir := threadsDir(t)
			jvm := jvmVerdict(t, filepath.Join(dir, "jdk17-"+program+".jstack.txt"))
			if len(jvm) != 1 {
				t.Fatalf("the jstack fixture holds %d dumps", len(jvm))
			}
			ours := runDeadlocks(t, filepath.Join(dir, "heap", "jdk17-"+program+".hprof.gz"))
			if len(ours) != 1 {
				t.Fatalf("%d reports for one heap dump", len(ours))
			}
			got, want := ourCycles(ours[0], true), jvmCycles(jvm[0], true)
			if !slices.Equal(got, want) {
				t.Errorf("from the heap dump:\n got %q\nwant %q (the JVM's report in the jstack dump)", got, want)
			}
			if program == "lock-pair" && len(want) != 1 {
				t.Errorf("the jstack fixture holds %d JVM deadlock reports, want 1", len(want))
			}
			if len(ours[0].OwnerUnknown) != 0 {
				t.Errorf("a heap dump records synchronizer owners, yet: %+v", ours[0].OwnerUnknown)
			}
		})
	}
}

// TestDeadlocksHeapDumpBusyBlocked checks the Busy program's heap dump:
// busy-parked waits for the ReentrantLock busy-sleeper holds (a wait, not a
// deadlock), and the two threads Busy leaves waiting to enter a monitor
// (busy-blocked, busy-relock) are BLOCKED, which only a note can say.
func TestDeadlocksHeapDumpBusyBlocked(t *testing.T) {
	out, notes := runDeadlocksStderr(t, filepath.Join(threadsDir(t), "heap", "jdk17-busy.hprof.gz"))
	if !strings.Contains(notes, "2 threads are BLOCKED") {
		t.Errorf("no note on the two BLOCKED threads:\n%s", notes)
	}
	if !strings.Contains(out, "no deadlock") {
		t.Errorf("busy heap dump:\n%s", out)
	}
}

// TestDeadlocksHeapDumpWithoutEvidence reads a JDK 17 heap dump whose only
// parked thread awaits a CountDownLatch (StackHolder.java), which has no
// owner: no deadlock, and notes that monitor deadlocks cannot be proven
// from a JDK 12+ heap dump, suggesting a thread dump.
func TestDeadlocksHeapDumpWithoutEvidence(t *testing.T) {
	out, notes := runDeadlocksStderr(t, filepath.Join(repoRoot(t), "testdata", "jvm", "jdk17-default.hprof.gz"))
	if !strings.Contains(out, "no deadlock") {
		t.Errorf("output:\n%s", out)
	}
	for _, want := range []string{"cannot be proven from a heap dump of JDK 12 or later", "jstack -l PID"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestDeadlocksMonitorDump reads the synthetic MONITOR DUMPs of both agent
// generations (agent-gen.sh): two threads deadlock, through two Java
// monitors (JVMTI reports no raw monitors) or through a raw monitor and a
// Java monitor (JVMPI); notified-waiter waits to be notified on a monitor
// of the cycle, which is no wait-for edge, so it is neither in the cycle
// nor blocked behind it.
func TestDeadlocksMonitorDump(t *testing.T) {
	for _, c := range []struct {
		file string
		want []cycleEdge
	}{
		{"agent-jvmti-monitor-cycle.hprof.txt", []cycleEdge{
			{"holder-left", "monitor", "Cycle$Right", "", "holder-right"},
			{"holder-right", "monitor", "Cycle$Left", "", "holder-left"},
		}},
		{"agent-jvmpi-monitor-cycle.hprof.txt", []cycleEdge{
			{"raw-holder", "monitor", "Cycle$Guard", "0x6f2000", "java-holder"},
			{"java-holder", "raw_monitor", "", "0x8092a10", "raw-holder"},
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			ours := runDeadlocks(t, filepath.Join(threadsDir(t), c.file))
			if len(ours) != 1 {
				t.Fatalf("%d reports", len(ours))
			}
			got, want := ourCycles(ours[0], true), []string{cycleKey(c.want)}
			if !slices.Equal(got, want) {
				t.Errorf("\n got %q\nwant %q", got, want)
			}
			if len(ours[0].BlockedBehind) != 0 {
				t.Errorf("blocked behind: %+v (waiting to be notified is no wait-for edge)", ours[0].BlockedBehind)
			}
		})
	}
}

// TestDeadlocksHeapTiesLocks reads LockPair's jstack dump with --heap-dump, the
// heap dump of the same process taken right after it: each synchronizer
// the JVM reported a thread waiting for is the heap object at that
// address, of the class the JVM printed, and the waiting thread itself
// retains it (LockSupport.park holds its blocker as an argument).
func TestDeadlocksHeapTiesLocks(t *testing.T) {
	dir := threadsDir(t)
	jstack := filepath.Join(dir, "jdk17-lock-pair.jstack.txt")
	out, err := runCLI(t, "deadlocks", "-o", "json", "--heap-dump", filepath.Join(dir, "heap", "jdk17-lock-pair.hprof.gz"), jstack)
	if err != nil {
		t.Fatal(err)
	}
	var tied struct {
		Reports []deadlockReport `json:"reports"`
		Locks   []struct {
			Lock  lockJSON `json:"lock"`
			Class string   `json:"class"`
			Paths []struct {
				RootThread string `json:"root_thread"`
			} `json:"paths"`
		} `json:"heap_locks"`
	}
	if err := json.Unmarshal([]byte(out), &tied); err != nil || len(tied.Reports) != 1 {
		t.Fatalf("not one document with the report and the heap's locks: %v\n%s", err, out)
	}
	jvm := jvmVerdict(t, jstack)
	if len(jvm) != 1 || len(jvm[0]) != 1 {
		t.Fatalf("the fixture holds %d dumps", len(jvm))
	}
	if len(tied.Locks) != len(jvm[0][0]) {
		t.Fatalf("%d locks tied, the JVM reported %d waits", len(tied.Locks), len(jvm[0][0]))
	}
	for _, e := range jvm[0][0] {
		found := false
		for _, l := range tied.Locks {
			if l.Lock.ID != e.id {
				continue
			}
			found = true
			if l.Class != e.class || len(l.Paths) == 0 || l.Paths[0].RootThread != e.thread {
				t.Errorf("%s: heap object %+v, want a %s retained by %q", e.id, l, e.class, e.thread)
			}
		}
		if !found {
			t.Errorf("lock %s of the JVM's report not tied", e.id)
		}
	}
}

// TestDeadlocksHeapDumpPossible reads the heap dump MixedPair's process
// wrote right after its jstack -l dump. The JVM reported there that
// mixed-monitor waits for a ReentrantLock held by mixed-lock, and mixed-lock
// waits to lock a monitor held by mixed-monitor. A heap dump names no
// monitor: it shows mixed-monitor (and mixed-bystander, which waits for the
// same lock by construction) waiting for that lock, whose owner mixed-lock is
// BLOCKED. That is a possible deadlock, reported with the lock, the
// blocked thread's frame and a note, and --exit-code gives it status 4.
func TestDeadlocksHeapDumpPossible(t *testing.T) {
	dir := threadsDir(t)
	jstack, err := os.ReadFile(filepath.Join(dir, "jdk17-mixed-pair.jstack.txt"))
	if err != nil {
		t.Fatal(err)
	}
	jvm := regexp.MustCompile(`"mixed-monitor":\n  waiting for ownable synchronizer 0x0*([0-9a-f]+), \(a ([^)]+)\),\n  which is held by "mixed-lock"`).FindSubmatch(jstack)
	frame := regexp.MustCompile(`(?m)^"mixed-lock" .*\n   java.lang.Thread.State: BLOCKED \(on object monitor\)\n\tat (\S+)`).FindSubmatch(jstack)
	if jvm == nil || frame == nil {
		t.Fatal("the jstack fixture lacks the JVM's report of the mixed-monitor/mixed-lock deadlock")
	}
	heap := filepath.Join(dir, "heap", "jdk17-mixed-pair.hprof.gz")
	ours := runDeadlocks(t, heap)
	if len(ours) != 1 || len(ours[0].Deadlocks) != 0 || len(ours[0].Possible) != 1 {
		t.Fatalf("reports %+v; want one with no proven deadlock and one possible", ours)
	}
	p := ours[0].Possible[0]
	if p.Blocked.Name != "mixed-lock" || p.Blocked.State != "BLOCKED" || p.Blocked.Frame != string(frame[1]) ||
		len(p.Blocked.Holds) != 1 || p.Blocked.Holds[0].ID != "0x"+string(jvm[1]) || p.Blocked.Holds[0].Class != string(jvm[2]) {
		t.Errorf("blocked thread %+v; the JVM: mixed-lock BLOCKED at %s holding 0x%s (a %s)", p.Blocked, frame[1], jvm[1], jvm[2])
	}
	var waiting []string
	for _, w := range p.Waiting {
		waiting = append(waiting, w.Name)
		if w.HeldBy != "mixed-lock" || w.WaitingFor.ID != "0x"+string(jvm[1]) {
			t.Errorf("waiting thread %+v", w)
		}
	}
	if slices.Sort(waiting); !slices.Equal(waiting, []string{"mixed-bystander", "mixed-monitor"}) {
		t.Errorf("waiting threads %q, want mixed-bystander and mixed-monitor", waiting)
	}
	out, notes := runDeadlocksStderr(t, heap)
	if !strings.Contains(out, "no deadlock proven, 1 deadlock possible") || !strings.Contains(out, "Possible deadlock 1: \"mixed-lock\" is BLOCKED") {
		t.Errorf("table:\n%s", out)
	}
	if !strings.Contains(notes, "1 possible deadlock:") {
		t.Errorf("no note on the possible deadlock:\n%s", notes)
	}
	var exit *ExitError
	if _, err := runCLI(t, "deadlocks", "--exit-code", heap); !errors.As(err, &exit) || exit.Code != 4 {
		t.Errorf("--exit-code: %v, want exit status 4", err)
	}
}
