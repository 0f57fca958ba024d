package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/report"
)

// runTriageJSON runs hprofctl FILE -o json.
func runTriageJSON(t *testing.T, path string) report.Triage {
	t.Helper()
	var tr report.Triage
	runJSON(t, &tr, path)
	return tr
}

// finding returns the text of the first finding on topic, "" when none.
func finding(tr report.Triage, topic string) (text, severity string) {
	for _, f := range tr.Findings {
		if f.Topic == topic {
			return f.Text, f.Severity
		}
	}
	return "", ""
}

// hasStep tells whether a next step runs this command line.
func hasStep(tr report.Triage, command string) bool {
	for _, n := range tr.Next {
		if n.Command == command {
			return true
		}
	}
	return false
}

// TestTriageOOM triages the dump fixture.OomMain's JVM wrote on
// OutOfMemoryError: the error thrown in thread main at OomMain.java:21;
// the suspect is the class fixture.OomMain, whose static ArrayList CHUNKS
// holds every chunk in its Object[] elementData (the accumulation point);
// no deadlock can hide in it (no thread BLOCKED or parked on a lock); the
// next steps include leaks and retainers on that Object[].
func TestTriageOOM(t *testing.T) {
	dump := filepath.Join(repoRoot(t), "testdata", "jvm", "jdk17-oom.hprof.gz")
	tr := runTriageJSON(t, dump)
	if oom, sev := finding(tr, "OutOfMemoryError"); oom != `thrown in thread "main" at fixture.OomMain.main(OomMain.java:21)` || sev != "problem" {
		t.Errorf("OutOfMemoryError finding %q (%s)", oom, sev)
	}
	suspect, _ := finding(tr, "leak suspect 1")
	if !strings.HasPrefix(suspect, "one class fixture.OomMain 0x") || !strings.Contains(suspect, "accumulated in java.lang.Object[] 0x") {
		t.Errorf("leak suspect 1: %q", suspect)
	}
	if d, _ := finding(tr, "deadlocks"); !strings.Contains(d, "no deadlock among 6 threads") {
		t.Errorf("deadlocks: %q", d)
	}
	acc := suspect[strings.LastIndex(suspect, " ")+1:]
	for _, step := range []string{"hprofctl leaks " + dump, "hprofctl retainers " + dump + " --object " + acc, "hprofctl report " + dump + " > report.html"} {
		if !hasStep(tr, step) {
			t.Errorf("no next step %q in %+v", step, tr.Next)
		}
	}
	out, err := runCLI(t, dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"What is wrong:", `! OutOfMemoryError: thrown in thread "main"`, "Next:", "hprofctl leaks " + dump} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestTriageVerdicts triages MAT's dump whose 497 MiB byte[] no GC root
// reaches (a problem, with top --keep-unreachable next), the heap dump of
// a synchronized deadlock and a JDK 25 JSON dump of a ReentrantLock
// deadlock (each a possible deadlock, with deadlocks next).
func TestTriageVerdicts(t *testing.T) {
	mat := filepath.Join(sharedCorpus(t), "eclipse-mat_mat", "java_pid1884.0001.hprof.gz")
	tr := runTriageJSON(t, mat)
	if u, sev := finding(tr, "unreachable"); !strings.HasPrefix(u, "497 MiB in 110 unreachable objects (99.9%") || sev != "problem" {
		t.Errorf("unreachable: %q (%s)", u, sev)
	}
	if !hasStep(tr, "hprofctl top --keep-unreachable "+mat) {
		t.Errorf("no top --keep-unreachable step: %+v", tr.Next)
	}
	for _, path := range []string{filepath.Join(threadsDir(t), "heap", "jdk17-monitor-pair.hprof.gz"), filepath.Join(threadsDir(t), "jdk25-lock-pair.json")} {
		tr := runTriageJSON(t, path)
		if d, sev := finding(tr, "deadlocks"); !strings.Contains(d, "none proven, but one is possible") || sev != "problem" {
			t.Errorf("%s: deadlocks %q (%s)", path, d, sev)
		}
		if !hasStep(tr, "hprofctl deadlocks "+path) {
			t.Errorf("%s: no deadlocks step: %+v", path, tr.Next)
		}
	}
}

// TestTriageArgs checks hprofctl's arguments without a command: a typo
// of a command with a file is an unknown command, a name that is neither
// a command nor a file says so.
func TestTriageArgs(t *testing.T) {
	if _, err := runCLI(t, "histoo", "x.hprof"); err == nil || !strings.Contains(err.Error(), `unknown command "histoo"`) {
		t.Errorf("typo: %v", err)
	}
	if _, err := runCLI(t, "histoo"); err == nil || !strings.Contains(err.Error(), "neither a command nor a file") {
		t.Errorf("neither: %v", err)
	}
}
