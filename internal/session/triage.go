package session

import (
	"cmp"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
)

// triageSuspects is how many leak suspects a triage names.
const triageSuspects = 3

// triageThreshold is the share of the reachable heap a triage's leak
// suspects retain more than (the leaks command's default).
const triageThreshold = 0.10

// Triage takes a first look at the file: what it is, what is wrong in it
// (an OutOfMemoryError and where it was thrown, leak suspects, the share
// no GC root reaches, the deadlock verdict, a cut) and the commands to run
// next, by what the file holds.
func (s *Session) Triage() (report.Triage, error) {
	t := report.Triage{File: s.name}
	var err error
	switch s.format.Kind {
	case input.KindThreadDumpText, input.KindThreadDumpJSON:
		err = s.triageThreadDumps(&t)
	case input.KindHPROF, input.KindHPROFASCII, input.KindJVMPICapture:
		err = s.triageHeap(&t)
	default:
		return t, s.triageOther(&t)
	}
	// The problems first, each kind in the order found.
	sort.SliceStable(t.Findings, func(a, b int) bool {
		return t.Findings[a].Severity == report.SeverityProblem && t.Findings[b].Severity != report.SeverityProblem
	})
	return t, err
}

// triageOther names what any other file is and how to look into it.
func (s *Session) triageOther(t *report.Triage) error {
	in, err := s.Info()
	if err != nil {
		return err
	}
	t.What = append(t.What, fmt.Sprintf("%s %s", in.Format, in.Version))
	t.Next = append(t.Next, s.step("info", "what the file holds"))
	return nil
}

// triageHeap triages a heap dump or an hprof agent file.
func (s *Session) triageHeap(t *report.Triage) error {
	in, err := s.Info()
	if err != nil {
		return err
	}
	t.What = append(t.What, fmt.Sprintf("%s %s written by %s, %s read", in.Format, in.Version, in.Producer, report.Bytes(in.BytesRead)))
	if j := in.JVM; j != nil && (j.Version != "" || j.Command != "") {
		t.What = append(t.What, strings.TrimSpace(fmt.Sprintf("Java %s, command: %s", j.Version, quoteControls(j.Command))))
	}
	if in.Truncated {
		t.Findings = append(t.Findings, report.Finding{Topic: "truncated", Severity: report.SeverityProblem,
			Text: "the dump is cut short: every answer covers only what was read before the cut"})
	}
	for _, a := range in.Anomalies {
		if a.Kind != "truncated" {
			t.Findings = append(t.Findings, report.Finding{Topic: "anomaly " + a.Kind, Severity: report.SeverityNote,
				Text: quoteControls(fmt.Sprintf("%s: %s", humanize.Comma(a.Count), a.Detail))})
		}
	}
	if in.Dumps == 0 {
		t.What = append(t.What, "no heap dump: profiling data only")
		t.Next = append(t.Next, s.step("sites", "allocation sites"), s.step("cpu", "the CPU profile"),
			s.step("threads", "the threads and their stacks"), s.step("monitors", "monitor contention"))
		return nil
	}
	t.What = append(t.What, fmt.Sprintf("%s objects of %s classes, %s shallow", humanize.Comma(in.Objects), humanize.Comma(int64(in.Classes)), report.Bytes(in.ShallowBytes)))
	if j := in.JVM; j != nil && j.OOMThread != "" {
		text := fmt.Sprintf("thrown in thread %q", j.OOMThread)
		if j.OOMFrame != "" {
			text += " at " + quoteControls(j.OOMFrame)
		}
		t.Findings = append(t.Findings, report.Finding{Topic: "OutOfMemoryError", Severity: report.SeverityProblem, Text: quoteControls(text)})
	}
	if err := s.triageRetention(t); err != nil {
		return err
	}
	if err := s.triageHeapDeadlocks(t); err != nil {
		return err
	}
	t.Next = append(t.Next, s.step("threads", "every thread's state and stack"), s.step("report", "the whole post-mortem as one HTML page", "> report.html"),
		s.step("serve", "browse the dump"))
	return nil
}

// triageRetention adds the leak suspects and the unreachable share.
func (s *Session) triageRetention(t *report.Triage) error {
	leaks, err := s.Leaks(LeakOptions{Threshold: triageThreshold})
	if err != nil {
		return err
	}
	l := leaks.Report
	for k, sus := range l.Suspects {
		if k == triageSuspects {
			t.Findings = append(t.Findings, report.Finding{Topic: "leak suspects", Severity: report.SeverityProblem,
				Text: fmt.Sprintf("%d more", len(l.Suspects)-k)})
			break
		}
		what, verb := "one "+cmp.Or(sus.Label, sus.Class)+" "+sus.ObjectID, "retains"
		if sus.Instances > 0 {
			what, verb = fmt.Sprintf("%s instances of %s", humanize.Comma(sus.Instances), sus.Class), "retain"
		}
		text := fmt.Sprintf("%s %s %s (%.1f%% of the reachable heap)", what, verb, report.Bytes(sus.RetainedBytes), sus.Percent)
		if a := sus.AccumulationPoint; a != nil {
			text += fmt.Sprintf(", accumulated in %s %s", a.Class, a.ObjectID)
		}
		t.Findings = append(t.Findings, report.Finding{Topic: fmt.Sprintf("leak suspect %d", k+1), Severity: report.SeverityProblem, Text: quoteControls(text)})
	}
	if len(l.Suspects) > 0 {
		t.Next = append(t.Next, s.step("leaks", "each suspect's biggest classes and its path from a GC root"))
	}
	if a := firstAccumulation(l); a != "" {
		t.Next = append(t.Next, s.step("retainers", "every path from the GC roots to the first accumulation point", "--object", a))
	}
	t.Next = append(t.Next, s.step("dominators", "the biggest objects and what each retains"))
	if note := l.Unreachable.Note(); note != "" {
		sev := report.SeverityNote
		if l.Unreachable.Share() >= 0.5 {
			sev = report.SeverityProblem
			t.Next = append(t.Next, s.step("top --keep-unreachable", "what the unreachable objects are"))
		}
		t.Findings = append(t.Findings, report.Finding{Topic: "unreachable", Severity: sev, Text: note})
	}
	return nil
}

// firstAccumulation is the object id of the first suspect's accumulation
// point, else of the suspect itself; "" when there is no suspect.
func firstAccumulation(l heap.LeakReport) string {
	if len(l.Suspects) == 0 {
		return ""
	}
	if a := l.Suspects[0].AccumulationPoint; a != nil {
		return a.ObjectID
	}
	return l.Suspects[0].ObjectID
}

// triageHeapDeadlocks adds the deadlock verdict of a heap dump's lock
// state, or of an agent file's MONITOR DUMP.
func (s *Session) triageHeapDeadlocks(t *report.Triage) error {
	if s.stdin() {
		return nil
	}
	r, _, err := s.HeapDeadlocks()
	if r == nil || err != nil {
		return err
	}
	addVerdict(t, *r)
	if r.Verdict != threads.VerdictNone {
		t.Next = append(t.Next, s.step("deadlocks", "the threads and locks of the deadlock verdict"))
	}
	return nil
}

// triageThreadDumps triages a file of thread dumps.
func (s *Session) triageThreadDumps(t *report.Triage) error {
	reports, err := s.Deadlocks(AllDumps)
	if err != nil {
		return err
	}
	kind := "thread dump"
	if s.format.Kind == input.KindThreadDumpJSON {
		kind = "JSON thread dump (jcmd Thread.dump_to_file)"
	}
	t.What = append(t.What, fmt.Sprintf("%s, %s", kind, report.Plural(len(reports), "dump")))
	for _, r := range reports {
		addVerdict(t, r)
	}
	t.Next = append(t.Next, s.step("deadlocks", "the threads and locks of each deadlock verdict"), s.step("threads", "every thread's state and stack"))
	return nil
}

// addVerdict adds a deadlock report's verdict as a finding.
func addVerdict(t *report.Triage, r threads.DeadlockReport) {
	f := report.Finding{Topic: "deadlocks", Severity: report.SeverityProblem}
	switch r.Verdict {
	case threads.VerdictDeadlock:
		f.Text = fmt.Sprintf("%s: %s", r.Source, report.Plural(len(r.Deadlocks), "deadlock"))
	case threads.VerdictPossible:
		f.Text = fmt.Sprintf("%s: none proven, but one is possible: %s", r.Source, strings.Join(r.Evidence, "; "))
	case threads.VerdictCannotTell:
		f.Severity = report.SeverityNote
		f.Text = fmt.Sprintf("%s: cannot tell: %s", r.Source, strings.Join(r.Evidence, "; "))
	default:
		f.Severity = report.SeverityNote
		f.Text = fmt.Sprintf("%s: no deadlock among %s", r.Source, report.Plural(r.Threads, "thread"))
	}
	f.Text = quoteControls(f.Text)
	t.Findings = append(t.Findings, f)
}

// step is the command line of an hprofctl command on this file, with
// arguments after the file, and what it tells.
func (s *Session) step(command, why string, after ...string) report.NextStep {
	line := "hprofctl " + command + " " + shellWord(s.name)
	for _, a := range after {
		line += " " + a
	}
	return report.NextStep{Command: line, Why: why}
}

// plainWord matches the words a shell reads as they are.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellWord quotes a file name for a POSIX shell where it needs it.
func shellWord(w string) string {
	if plainWord.MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// quoteControls escapes the control characters of a text from the dump.
func quoteControls(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		q := fmt.Sprintf("%q", s)
		return q[1 : len(q)-1]
	}
	return s
}
