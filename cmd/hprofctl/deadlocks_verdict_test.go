package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// verdictReport is the part of a deadlocks JSON report that holds its
// verdict.
type verdictReport struct {
	Deadlocks []json.RawMessage `json:"deadlocks"`
	Verdict   string            `json:"verdict"`
	Evidence  []string          `json:"evidence"`
}

// runVerdict runs deadlocks -o json on one file and returns its one report.
func runVerdict(t *testing.T, path string) verdictReport {
	t.Helper()
	out, err := runCLI(t, "deadlocks", "-o", "json", path)
	if err != nil {
		t.Fatalf("deadlocks %s: %v", path, err)
	}
	var r verdictReport
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&r); err != nil {
		t.Fatalf("deadlocks %s: %v\n%s", path, err, out)
	}
	return r
}

// exitStatus runs deadlocks --exit-code on path and returns its status.
func exitStatus(t *testing.T, path string) int {
	t.Helper()
	_, err := runCLI(t, "deadlocks", "--exit-code", path)
	var exit *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	}
	t.Fatalf("deadlocks --exit-code %s: %v", path, err)
	return -1
}

// TestDeadlockVerdictPossible checks the dumps of real deadlocks that
// cannot prove them. LockPair's lock-a holds the fair ReentrantLock and
// waits for the non-fair one, lock-b the reverse; MixedPair's
// mixed-monitor holds the Guard monitor and waits for a non-fair
// ReentrantLock that mixed-lock holds while it waits to lock the Guard.
// JDK 25's Thread.dump_to_file (JSON and plain) records no ReentrantLock
// owner; a heap dump of MonitorPair (pair-a and pair-b each hold one
// monitor and wait for the other's) names no monitor. None may say "no
// deadlock": each is a possible deadlock, with the waiting threads as
// evidence, exit status 4.
func TestDeadlockVerdictPossible(t *testing.T) {
	dir := threadsDir(t)
	cases := []struct {
		file     string
		evidence []string // substrings of the evidence, in order
	}{
		{"jdk25-lock-pair.json", []string{`"lock-a" is WAITING, parked on java.util.concurrent.locks.ReentrantLock$NonfairSync@`,
			`"lock-b" is WAITING, parked on java.util.concurrent.locks.ReentrantLock$FairSync@`}},
		{"jdk25-lock-pair.plain.txt", []string{`"lock-a" is WAITING, parked on java.util.concurrent.locks.ReentrantLock$NonfairSync@`,
			`"lock-b" is WAITING, parked on java.util.concurrent.locks.ReentrantLock$FairSync@`}},
		{"jdk25-mixed-pair.json", []string{`"mixed-monitor" is WAITING, parked on java.util.concurrent.locks.ReentrantLock$NonfairSync@`,
			`"mixed-lock" is BLOCKED, waiting for "mixed-monitor"`, `"mixed-bystander" is WAITING, parked on`}},
		{"jdk25-mixed-pair.plain.txt", []string{`"mixed-monitor" is WAITING, parked on java.util.concurrent.locks.ReentrantLock$NonfairSync@`,
			`"mixed-lock" is BLOCKED, waiting for "mixed-monitor"`, `"mixed-bystander" is WAITING, parked on`}},
		{"heap/jdk17-monitor-pair.hprof.gz", []string{`"pair-a" is BLOCKED entering a monitor the dump does not name`,
			`"pair-b" is BLOCKED entering a monitor the dump does not name`}},
		{"heap/jdk25-monitor-pair.hprof.gz", []string{`"pair-a" is BLOCKED entering a monitor the dump does not name`,
			`"pair-b" is BLOCKED entering a monitor the dump does not name`}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			r := runVerdict(t, path)
			if r.Verdict != "possible_deadlock" || len(r.Deadlocks) != 0 || len(r.Evidence) != len(c.evidence) {
				t.Fatalf("verdict %q, %d deadlocks, evidence %q; want possible_deadlock with %d lines", r.Verdict, len(r.Deadlocks), r.Evidence, len(c.evidence))
			}
			for k, want := range c.evidence {
				if !strings.Contains(r.Evidence[k], want) {
					t.Errorf("evidence %d %q, want it to contain %q", k, r.Evidence[k], want)
				}
			}
			out, err := runCLI(t, "deadlocks", path)
			if err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(out, "\n")
			if strings.HasSuffix(head, "no deadlock") || !strings.HasSuffix(head, "no deadlock proven, but one is possible:") {
				t.Errorf("table headline %q", head)
			}
			if !strings.Contains(out, c.evidence[0]) {
				t.Errorf("table lacks the evidence %q:\n%s", c.evidence[0], out)
			}
			if got := exitStatus(t, path); got != possibleDeadlockExitCode {
				t.Errorf("--exit-code: status %d, want %d", got, possibleDeadlockExitCode)
			}
		})
	}
}

// TestDeadlockVerdictOthers checks the other verdicts: a jstack -l dump
// records every owner, so Busy's (no deadlock by construction) is "no
// deadlock", status 0, and LockPair's is a deadlock, status 3; Busy's cut
// after its first threads cannot tell, status 5.
func TestDeadlockVerdictOthers(t *testing.T) {
	dir := threadsDir(t)
	busy := filepath.Join(dir, "jdk17-busy.jstack.txt")
	if r := runVerdict(t, busy); r.Verdict != "no_deadlock" || len(r.Evidence) != 0 {
		t.Errorf("busy: verdict %q, evidence %q", r.Verdict, r.Evidence)
	}
	if got := exitStatus(t, busy); got != 0 {
		t.Errorf("busy: status %d", got)
	}
	pair := filepath.Join(dir, "jdk17-lock-pair.jstack.txt")
	if r := runVerdict(t, pair); r.Verdict != "deadlock" {
		t.Errorf("lock-pair: verdict %q", r.Verdict)
	}
	if got := exitStatus(t, pair); got != deadlockExitCode {
		t.Errorf("lock-pair: status %d", got)
	}
	data, err := os.ReadFile(busy)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.txt")
	end := strings.Index(string(data), `"busy-waiter"`) + 200
	if err := os.WriteFile(cut, data[:end], 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runVerdict(t, cut); r.Verdict != "cannot_tell" || !slices.ContainsFunc(r.Evidence, func(e string) bool { return strings.Contains(e, "cut short") }) {
		t.Errorf("cut dump: verdict %q, evidence %q", r.Verdict, r.Evidence)
	}
	if got := exitStatus(t, cut); got != cannotTellExitCode {
		t.Errorf("cut dump: status %d, want %d", got, cannotTellExitCode)
	}
	help, err := runCLI(t, "deadlocks", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3  deadlock", "4  possible deadlock", "5  cannot tell", "0  no deadlock"} {
		if !strings.Contains(help, want) {
			t.Errorf("deadlocks --help does not document %q", want)
		}
	}
}

// TestThreadsAndDeadlocksCountAlike checks that threads and deadlocks
// count the threads of a heap dump alike: those the dump roots as threads.
// The MonitorPair JVMs (JDK 17 and 25) also have Thread objects for the
// threads HotSpot hides from tools (compiler threads, the Service Thread),
// which the dump gives no stack and neither command counts.
func TestThreadsAndDeadlocksCountAlike(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			dump := filepath.Join(threadsDir(t), "heap", jdk+"-monitor-pair.hprof.gz")
			var rows []struct {
				Name string `json:"name"`
			}
			runJSON(t, &rows, "threads", dump)
			var report struct {
				Threads int `json:"threads"`
			}
			out, err := runCLI(t, "deadlocks", "-o", "json", dump)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(out), &report); err != nil {
				t.Fatal(err)
			}
			if report.Threads != len(rows) {
				t.Errorf("deadlocks counts %d threads, threads lists %d", report.Threads, len(rows))
			}
			for _, r := range rows {
				if strings.Contains(r.Name, "CompilerThread") || r.Name == "Service Thread" {
					t.Errorf("threads lists the hidden JVM thread %q", r.Name)
				}
			}
			if !slices.ContainsFunc(rows, func(r struct {
				Name string `json:"name"`
			}) bool {
				return r.Name == "pair-a"
			}) {
				t.Errorf("threads %v lack pair-a", rows)
			}
		})
	}
}
