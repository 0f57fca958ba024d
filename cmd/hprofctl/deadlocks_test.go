package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// deadlockReport is the JSON of `hprofctl deadlocks -o json` for one dump.
type deadlockReport struct {
	Deadlocks []struct {
		Threads []struct {
			Name       string   `json:"name"`
			State      string   `json:"state"`
			WaitingFor lockJSON `json:"waiting_for"`
			HeldBy     string   `json:"held_by"`
			Frames     []string `json:"frames"`
		} `json:"threads"`
	} `json:"deadlocks"`
	BlockedBehind []waiterJSON `json:"blocked_behind"`
	OwnerUnknown  []waiterJSON `json:"owner_unknown"`
	Possible      []struct {
		Blocked struct {
			Name  string     `json:"name"`
			State string     `json:"state"`
			Frame string     `json:"frame"`
			Holds []lockJSON `json:"holds"`
		} `json:"blocked"`
		Waiting []waiterJSON `json:"waiting"`
	} `json:"possible_deadlocks"`
	Source    string `json:"source"`
	Truncated bool   `json:"truncated"`
}

type lockJSON struct {
	Kind  string `json:"kind"`
	Class string `json:"class"`
	ID    string `json:"object_id"`
	Name  string `json:"name"`
}

type waiterJSON struct {
	Name       string   `json:"name"`
	WaitingFor lockJSON `json:"waiting_for"`
	HeldBy     string   `json:"held_by"`
}

// runDeadlocks runs `hprofctl deadlocks -o json` and decodes its one
// document: the report of the one dump, or {"reports": [...]}, one per
// dump.
func runDeadlocks(t *testing.T, args ...string) []deadlockReport {
	t.Helper()
	out, err := runCLI(t, append([]string{"deadlocks", "-o", "json"}, args...)...)
	if err != nil {
		t.Fatalf("hprofctl deadlocks %s: %v", strings.Join(args, " "), err)
	}
	return decodeDeadlocks(t, out)
}

// decodeDeadlocks decodes the JSON document of deadlocks: the report of
// the one dump, or {"reports": [...]}.
func decodeDeadlocks(t *testing.T, out string) []deadlockReport {
	t.Helper()
	var doc struct {
		Reports *[]deadlockReport `json:"reports"`
		deadlockReport
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("output is not one JSON document (%v):\n%s", err, out)
	}
	if doc.Reports != nil {
		return *doc.Reports
	}
	return []deadlockReport{doc.deadlockReport}
}

// cycleEdge is one thread of a deadlock as both hprofctl and the JVM name
// it: the thread, the kind and class of the lock it waits for, the lock's
// address (empty where a dump names locks by identity), and its owner.
type cycleEdge struct {
	thread, kind, class, id, heldBy string
}

func (e cycleEdge) String() string {
	return fmt.Sprintf("%s waits for %s %s %s held by %s", e.thread, e.kind, e.class, e.id, e.heldBy)
}

// cycleKey renders a deadlock as its sorted edges, for comparing sets.
func cycleKey(edges []cycleEdge) string {
	var s []string
	for _, e := range edges {
		s = append(s, e.String())
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

// ourCycles is each deadlock of a report as a cycleKey; withIDs keeps the
// lock addresses.
func ourCycles(r deadlockReport, withIDs bool) []string {
	var out []string
	for _, d := range r.Deadlocks {
		var edges []cycleEdge
		for _, th := range d.Threads {
			e := cycleEdge{th.Name, th.WaitingFor.Kind, th.WaitingFor.Class, th.WaitingFor.ID, th.HeldBy}
			if !withIDs {
				e.id = ""
			}
			edges = append(edges, e)
		}
		out = append(out, cycleKey(edges))
	}
	slices.Sort(out)
	return out
}

// The JVM's own deadlock report, which HotSpot appends to a thread dump:
//
//	Found one Java-level deadlock:
//	=============================
//	"pair-a":
//	  waiting to lock monitor 0x00007f3b58001440 (object 0x0000000687486f88, a threads.MonitorPair$Right),
//	  which is held by "pair-b"
//	…
//	Java stack information for the threads listed above:
//	…
//	Found 1 deadlock.
var (
	jvmDeadlockStart = regexp.MustCompile(`^Found (one|\d+) Java-level deadlocks?:`)
	jvmDeadlockEnd   = regexp.MustCompile(`^Found \d+ deadlocks?\.`)
	jvmThread        = regexp.MustCompile(`^"(.*)":$`)
	jvmMonitorWait   = regexp.MustCompile(`^\s+waiting to lock monitor 0x[0-9a-f]+ \(object (0x[0-9a-f]+), a (.*)\),$`)
	jvmSyncWait      = regexp.MustCompile(`^\s+waiting for ownable synchronizer (0x[0-9a-f]+), \(a (.*)\),$`)
	jvmHeldBy        = regexp.MustCompile(`^\s+which is held by "(.*)"$`)
)

// jvmVerdict reads the JVM's deadlock reports of a file, per dump (a
// "Full thread dump" line starts each), each deadlock as its edges.
func jvmVerdict(t *testing.T, path string) [][][]cycleEdge {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var dumps [][][]cycleEdge
	var inReport bool
	var e *cycleEdge
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Full thread dump "):
			dumps = append(dumps, nil)
		case jvmDeadlockStart.MatchString(line):
			inReport = true
			dumps[len(dumps)-1] = append(dumps[len(dumps)-1], nil)
		case strings.HasPrefix(line, "Java stack information"):
			inReport = false
		case !inReport:
		case jvmThread.MatchString(line):
			cur := dumps[len(dumps)-1]
			cur[len(cur)-1] = append(cur[len(cur)-1], cycleEdge{thread: jvmThread.FindStringSubmatch(line)[1]})
			e = &cur[len(cur)-1][len(cur[len(cur)-1])-1]
		case jvmMonitorWait.MatchString(line):
			g := jvmMonitorWait.FindStringSubmatch(line)
			e.kind, e.id, e.class = "monitor", address(g[1]), g[2]
		case jvmSyncWait.MatchString(line):
			g := jvmSyncWait.FindStringSubmatch(line)
			e.kind, e.id, e.class = "synchronizer", address(g[1]), g[2]
		case jvmHeldBy.MatchString(line):
			e.heldBy = jvmHeldBy.FindStringSubmatch(line)[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return dumps
}

// address normalizes a HotSpot address to hprofctl's 0x-hex.
func address(s string) string {
	n, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return fmt.Sprintf("0x%x", n)
}

func jvmCycles(deadlocks [][]cycleEdge, withIDs bool) []string {
	var out []string
	for _, d := range deadlocks {
		edges := slices.Clone(d)
		if !withIDs {
			for i := range edges {
				edges[i].id = ""
			}
		}
		out = append(out, cycleKey(edges))
	}
	slices.Sort(out)
	return out
}

func threadsDir(t *testing.T) string { return filepath.Join(repoRoot(t), "testdata", "threads") }

// withoutVerdict writes a copy of a dump file without the JVM's deadlock
// reports and returns its path.
func withoutVerdict(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	skipping := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case jvmDeadlockStart.MatchString(line):
			skipping = true
		case skipping && jvmDeadlockEnd.MatchString(line):
			skipping = false
			continue
		}
		if !skipping {
			kept = append(kept, line)
		}
	}
	stripped := strings.Join(kept, "")
	if strings.Contains(stripped, "Java-level deadlock") || strings.Contains(stripped, "which is held by") {
		t.Fatal("the JVM's report is still there")
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeadlocksMatchJVM runs deadlocks on every HotSpot dump of the fixture
// programs that the JVM found deadlocked (two- and three-thread
// synchronized cycles, a ReentrantLock cycle, a monitor/ReentrantLock
// cycle; jstack -l and jcmd Thread.print -l, JDK 17 and 25; the SIGQUIT
// dump inside an application log; two dumps in one file), and on the busy
// program with no deadlock: the deadlocks found, with their locks'
// classes and addresses and their owners, are exactly the ones the JVM
// printed, with and without the JVM's report in the input.
func TestDeadlocksMatchJVM(t *testing.T) {
	var files []string
	for _, program := range []string{"monitor-pair", "monitor-ring", "lock-pair", "mixed-pair", "busy"} {
		for _, jdk := range []string{"jdk17", "jdk25"} {
			for _, tool := range []string{"jstack", "jcmd"} {
				files = append(files, fmt.Sprintf("%s-%s.%s.txt", jdk, program, tool))
			}
		}
	}
	files = append(files, "jdk17-monitor-pair.applog.txt", "jdk17-mixed-pair.two-dumps.txt")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(threadsDir(t), name)
			jvm := jvmVerdict(t, path)
			for _, input := range []string{path, withoutVerdict(t, path)} {
				ours := runDeadlocks(t, input)
				if len(ours) != len(jvm) {
					t.Fatalf("%d dumps read, the file holds %d", len(ours), len(jvm))
				}
				for k := range jvm {
					got, want := ourCycles(ours[k], true), jvmCycles(jvm[k], true)
					if !slices.Equal(got, want) {
						t.Errorf("dump %d of %s:\n got %q\nwant %q (the JVM's report)", k+1, filepath.Base(input), got, want)
					}
					if len(ours[k].OwnerUnknown) != 0 && !strings.Contains(name, "applog") {
						t.Errorf("owner unknown in a -l dump: %+v", ours[k].OwnerUnknown)
					}
				}
			}
			if !strings.Contains(name, "busy") && len(jvm[len(jvm)-1]) == 0 {
				t.Error("the fixture holds no JVM deadlock report")
			}
		})
	}
}

// TestDeadlocksBlockedBehind checks the threads blocked behind a deadlock
// that the fixture programs make: MonitorRing's bystander waits for the
// Slot ring-1 holds; MixedPair's waits for the ReentrantLock mixed-lock
// holds. The JVM does not list them.
func TestDeadlocksBlockedBehind(t *testing.T) {
	for _, c := range []struct {
		program string
		want    waiterJSON
	}{
		{"monitor-ring", waiterJSON{Name: "ring-bystander", WaitingFor: lockJSON{Kind: "monitor", Class: "threads.MonitorRing$Slot"}, HeldBy: "ring-1"}},
		{"mixed-pair", waiterJSON{Name: "mixed-bystander", WaitingFor: lockJSON{Kind: "synchronizer", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}, HeldBy: "mixed-lock"}},
	} {
		for _, jdk := range []string{"jdk17", "jdk25"} {
			name := fmt.Sprintf("%s-%s.jstack.txt", jdk, c.program)
			t.Run(name, func(t *testing.T) {
				r := runDeadlocks(t, filepath.Join(threadsDir(t), name))[0]
				if len(r.BlockedBehind) != 1 {
					t.Fatalf("blocked behind: %+v", r.BlockedBehind)
				}
				got := r.BlockedBehind[0]
				if got.WaitingFor.ID == "" {
					t.Error("no lock address")
				}
				got.WaitingFor.ID = ""
				if got != c.want {
					t.Errorf("blocked behind %+v, want %+v", got, c.want)
				}
				for _, d := range r.Deadlocks {
					for _, th := range d.Threads {
						if th.Name == c.want.Name {
							t.Error("the bystander is reported as part of the deadlock")
						}
					}
				}
			})
		}
	}
}

// TestDeadlockAfterWait checks the WaitRelock program's cycle, which the
// JVM does not report: relock-a, notified, waits to re-lock Mail, which
// relock-b holds; relock-b waits to lock Note, which relock-a took before
// it called Mail.wait().
func TestDeadlockAfterWait(t *testing.T) {
	want := cycleKey([]cycleEdge{
		{"relock-a", "monitor", "threads.WaitRelock$Mail", "", "relock-b"},
		{"relock-b", "monitor", "threads.WaitRelock$Note", "", "relock-a"},
	})
	for _, jdk := range []string{"jdk17", "jdk25"} {
		for _, tool := range []string{"jstack", "jcmd"} {
			name := fmt.Sprintf("%s-wait-relock.%s.txt", jdk, tool)
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(threadsDir(t), name)
				if jvm := jvmVerdict(t, path); len(jvm[0]) != 0 {
					t.Fatalf("the JVM reported %v; the test expects it not to see this cycle", jvm[0])
				}
				got := ourCycles(runDeadlocks(t, path)[0], false)
				if !slices.Equal(got, []string{want}) {
					t.Errorf("deadlocks %q, want %q", got, want)
				}
			})
		}
	}
}

// TestDeadlocksThreadDumpToFile runs deadlocks on the JDK 25
// Thread.dump_to_file dumps (JSON and plain text) of the fixture programs,
// taken from the same processes as the jstack dumps. Their monitor cycles
// are the JVM's; they name no owner of a ReentrantLock, so a cycle through
// one cannot be proven and its parked threads are listed as waiting for a
// lock with an unknown owner; and they do not say which monitor a notified
// thread re-enters, so the WaitRelock cycle cannot be seen.
func TestDeadlocksThreadDumpToFile(t *testing.T) {
	ownerUnknown := map[string][]string{
		"lock-pair":  {"lock-a", "lock-b"},
		"mixed-pair": {"mixed-bystander", "mixed-monitor"},
		"busy":       {"busy-parked"},
	}
	for _, program := range []string{"monitor-pair", "monitor-ring", "lock-pair", "mixed-pair", "wait-relock", "busy"} {
		jvm := jvmVerdict(t, filepath.Join(threadsDir(t), "jdk25-"+program+".jstack.txt"))[0]
		var provable [][]cycleEdge
		for _, d := range jvm {
			if !slices.ContainsFunc(d, func(e cycleEdge) bool { return e.kind == "synchronizer" }) {
				provable = append(provable, d)
			}
		}
		for _, ext := range []string{"json", "plain.txt"} {
			name := "jdk25-" + program + "." + ext
			t.Run(name, func(t *testing.T) {
				r := runDeadlocks(t, filepath.Join(threadsDir(t), name))[0]
				if got, want := ourCycles(r, false), jvmCycles(provable, false); !slices.Equal(got, want) {
					t.Errorf("deadlocks %q, want %q", got, want)
				}
				var unknown []string
				for _, w := range r.OwnerUnknown {
					unknown = append(unknown, w.Name)
				}
				slices.Sort(unknown)
				if !slices.Equal(unknown, ownerUnknown[program]) {
					t.Errorf("owner unknown %q, want %q", unknown, ownerUnknown[program])
				}
			})
		}
	}
}

// TestDeadlocksExitCode checks --exit-code: status 3 for a deadlock, 0 for
// none, and an ordinary error (status 1) for a file that is no thread dump.
func TestDeadlocksExitCode(t *testing.T) {
	dir := threadsDir(t)
	_, err := runCLI(t, "deadlocks", "--exit-code", filepath.Join(dir, "jdk17-busy.jstack.txt"), filepath.Join(dir, "jdk17-lock-pair.jcmd.txt"))
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 3 {
		t.Errorf("deadlock: error %v, want exit status 3", err)
	}
	if _, err := runCLI(t, "deadlocks", "--exit-code", filepath.Join(dir, "jdk17-busy.jstack.txt")); err != nil {
		t.Errorf("no deadlock: %v", err)
	}
	if _, err := runCLI(t, "deadlocks", filepath.Join(dir, "jdk17-lock-pair.jcmd.txt")); err != nil {
		t.Errorf("deadlock without --exit-code: %v", err)
	}
	_, err = runCLI(t, "deadlocks", "--exit-code", filepath.Join(dir, "jdk17-java-version.txt"))
	if err == nil || errors.As(err, &exit) || !strings.Contains(err.Error(), "no thread dump found") {
		t.Errorf("not a thread dump: error %v", err)
	}
}

// TestDeadlocksTable checks the table output: the deadlock with each
// thread's lock, owner and stack down to the frame that took the lock the
// other waits for, then the thread blocked behind it.
func TestDeadlocksTable(t *testing.T) {
	out, err := runCLI(t, "deadlocks", filepath.Join(threadsDir(t), "jdk17-mixed-pair.jstack.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1 deadlock", "Deadlock 1: 2 threads",
		`"mixed-monitor" WAITING, waiting for <0x`, `(a java.util.concurrent.locks.ReentrantLock$NonfairSync) held by "mixed-lock"`,
		"    at threads.MixedPair.monitorThenLock(MixedPair.java:34)\n        - locked <0x",
		"        - waiting to lock <0x",
		"Blocked behind deadlock 1", "mixed-bystander",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "MixedPair$$Lambda$1") {
		t.Error("mixed-monitor's stack goes below the frame that took the monitor")
	}
}

// TestDeadlocksCSV checks the CSV rows: one per deadlocked or blocked thread.
func TestDeadlocksCSV(t *testing.T) {
	out, err := runCLI(t, "deadlocks", "-o", "csv", filepath.Join(threadsDir(t), "jdk17-monitor-ring.jstack.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "source,deadlock,role,thread") {
		t.Fatalf("CSV:\n%s", out)
	}
	if !strings.Contains(lines[4], ",blocked behind,ring-bystander,") {
		t.Errorf("last row %q", lines[4])
	}
}

// TestDeadlocksDumpFlag checks --dump on a file holding two dumps.
func TestDeadlocksDumpFlag(t *testing.T) {
	path := filepath.Join(threadsDir(t), "jdk17-mixed-pair.two-dumps.txt")
	all := runDeadlocks(t, path)
	last := runDeadlocks(t, path, "--dump", "-1")
	first := runDeadlocks(t, path, "--dump", "0")
	if len(all) != 2 || len(last) != 1 || len(first) != 1 || last[0].Source != all[1].Source || first[0].Source != all[0].Source {
		t.Fatalf("sources: all %d, --dump -1 %+v, --dump 0 %+v", len(all), last, first)
	}
	if _, err := runCLI(t, "deadlocks", path, "--dump", "2"); err == nil {
		t.Error("--dump 2 of a file with two dumps: no error")
	}
}

// TestDeadlocksTruncated cuts a dump inside the thread after the deadlocked
// pair: the command warns, and finds the deadlock in the threads before
// the cut.
func TestDeadlocksTruncated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(threadsDir(t), "jdk17-monitor-pair.jstack.txt"))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(data), `"Attach Listener"`)
	if at < 0 {
		t.Fatal("no Attach Listener thread")
	}
	path := filepath.Join(t.TempDir(), "cut.txt")
	if err := os.WriteFile(path, data[:at+30], 0o644); err != nil {
		t.Fatal(err)
	}
	r := runDeadlocks(t, path)
	if len(r) != 1 || !r[0].Truncated || len(r[0].Deadlocks) != 1 {
		t.Fatalf("cut dump: %+v", r)
	}
}
