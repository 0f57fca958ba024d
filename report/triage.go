package report

import (
	"fmt"
	"io"
)

// Triage is the first look at a file that `hprofctl FILE` gives: what the
// file is, what is wrong in it, and the commands to run next.
type Triage struct {
	File string `json:"file"`
	// What says what the file is, one line each (format, producer, size,
	// the JVM that wrote it).
	What []string `json:"what"`
	// Findings are what is wrong in it, the worst first.
	Findings []Finding `json:"findings"`
	// Next are the commands to run next, with what each one tells.
	Next []NextStep `json:"next"`
}

// Severities of a Finding.
const (
	// SeverityProblem marks what a post-mortem is about: an
	// OutOfMemoryError, a leak suspect, a deadlock proven or possible, a
	// dump cut short.
	SeverityProblem = "problem"
	// SeverityNote marks what the answers leave out or cannot tell.
	SeverityNote = "note"
)

// Finding is one thing wrong in the file.
type Finding struct {
	Topic    string `json:"topic"`
	Severity string `json:"severity"`
	Text     string `json:"text"`
}

// NextStep is a command to run next and what it tells.
type NextStep struct {
	Command string `json:"command"`
	Why     string `json:"why"`
}

// WriteTriage renders a triage: JSON is the Triage object; CSV one row
// per finding and next step (section, topic, severity, text); a table is
// three short paragraphs.
func WriteTriage(w io.Writer, t Triage, o Options) error { return Generate(w, triage{t}, o) }

// triage is a Triage as a Document.
type triage struct{ Triage }

// JSON writes the Triage object.
func (t triage) JSON(w io.Writer) error {
	out := t.Triage
	out.What, out.Findings, out.Next = nonNil(out.What), nonNil(out.Findings), nonNil(out.Next)
	return writeJSON(w, out)
}

// CSV writes the findings and the next steps.
func (t triage) CSV(w io.Writer, o Options) error {
	g := grid{columns: []column{{"section", text, "section"}, {"topic", text, "topic"}, {"severity", text, "severity"}, {"text", text, "text"}}}
	for _, line := range t.What {
		g.rows = append(g.rows, []any{"what", "", "", line})
	}
	for _, f := range t.Findings {
		g.rows = append(g.rows, []any{"finding", f.Topic, f.Severity, f.Text})
	}
	for _, n := range t.Next {
		g.rows = append(g.rows, []any{"next", n.Command, "", n.Why})
	}
	return o.writeCSV(w, g)
}

// Table writes what the file is, what is wrong, and what to run next.
func (t triage) Table(w io.Writer, _ Options) error {
	p := &printer{w: w}
	p.line("%s", t.File)
	for _, line := range t.What {
		p.line("  %s", line)
	}
	p.line("")
	if len(t.Findings) == 0 {
		p.line("Nothing wrong found.")
	} else {
		p.line("What is wrong:")
		for _, f := range t.Findings {
			mark := "!"
			if f.Severity == SeverityNote {
				mark = "-"
			}
			p.line("  %s %s: %s", mark, f.Topic, f.Text)
		}
	}
	if len(t.Next) > 0 {
		p.line("")
		p.line("Next:")
		width := 0
		for _, n := range t.Next {
			width = max(width, len(n.Command))
		}
		for _, n := range t.Next {
			p.line("  %-*s  # %s", width, n.Command, n.Why)
		}
	}
	return p.err
}

// Sentence helpers the triage's composer shares.

// Plural writes a count and a noun, with an s unless the count is 1.
func Plural(n int, noun string) string { return plural(n, noun) }

// Bytes writes a byte count as tables do (KiB, MiB ...).
func Bytes(n int64) string { return fmt.Sprint(Options{}.cell(bytes, n, false)) }
