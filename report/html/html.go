// Package html renders analysis results as one self-contained HTML page,
// the post-mortem report of `hprofctl report`: a dump's overview, leak
// suspects with their paths from the GC roots, the objects and groups
// that retain most, the class histogram, the threads and the deadlocks.
//
// The page references nothing outside itself and runs no script: its
// style sheet is inline and allowed by hash in a Content-Security-Policy
// that allows nothing else, and its charts are inline SVG. Every string
// from a dump (class, field and thread names, String values) goes through
// html/template's contextual escaping, so markup a dump holds is shown as
// text and never read as markup. Like package report, it formats and
// never computes.
package html

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/report"
)

// Report is what the page shows, every part computed beforehand by the
// analysis package.
type Report struct {
	// Generator names the program that wrote the page, as "hprofctl
	// VERSION"; the page says nothing else about when or where it was
	// written, so the same dump gives the same bytes.
	Generator string
	Info      heap.Info
	// Leaks are the suspects, their paths described (LeakReport.Describe),
	// and PathRetained what each step of each path retains
	// (LeakReport.PathRetainedBytes); nil leaves the steps' sizes out.
	Leaks        heap.LeakReport
	PathRetained [][]int64
	// Dominators are the objects at the top of the dominator tree that
	// retain most, charted and listed.
	Dominators heap.DominatorReport
	// Consumers are top consumer reports, one table each (by class, by
	// package, ...), in this order.
	Consumers []heap.TopConsumerReport
	Histogram heap.Histo
	// Threads are the dump's threads with their stacks, and with what
	// they retain when AddThreadRetention ran.
	Threads []threads.ThreadRow
	// Deadlocks is what the dump's lock state shows, with the notes on
	// what it cannot tell; nil when the file holds no lock state to
	// search (no binary heap dump).
	Deadlocks     *threads.DeadlockReport
	DeadlockNotes []string
}

//go:embed report.html.tmpl
var pageTemplate string

// commonTemplates are the templates the report and the served pages
// share: a byte count, a bar, the heap a figure is of, a table of
// threads waiting for locks.
//
//go:embed common.tmpl
var commonTemplates string

//go:embed style.css
var styleSheet string

// policy is the page's Content-Security-Policy: nothing may load or run
// but the inline style sheet, named by its hash, so neither a script nor
// a style that markup from a dump would smuggle in runs, were it ever
// read as markup.
var policy = "default-src 'none'; style-src 'sha256-" + hashOf(styleSheet) + "'; base-uri 'none'; form-action 'none'"

// hashOf is the base64 SHA-256 of s, as a policy names an inline element.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// page is the report's template.
var page = template.Must(template.Must(template.New("report").Funcs(funcs).Parse(pageTemplate)).Parse(commonTemplates))

// funcs format the numbers and names of the report and of the served
// pages.
var funcs = template.FuncMap{
	"bytes": func(b int64) string { return humanize.IBytes(uint64(max(b, 0))) },
	"count": func(n int64) string { return humanize.Comma(n) },
	// exact is a byte count in full where bytes rounds it (from 1 KiB).
	"exact": func(b int64) string {
		if b < 1024 {
			return ""
		}
		return humanize.Comma(b) + " B"
	},
	"pct":      pct,
	"fraction": func(f float64) string { return pct(100 * f) },
	"inc":      func(i int) int { return i + 1 },
	"frame":    report.FrameString,
	"lock":     lockText,
	"when":     when,
	"barlen":   func(p float64) string { return strconv.FormatFloat(min(max(p, 0), 100), 'f', 1, 64) },
	"int64":    func(n int) int64 { return int64(n) },
	"plural":   plural,
	"states":   threads.ThreadStates,
	"step":     stepNumber,
}

// stepNumber is how a page numbers step i of path: its depth, the root's
// step 0, counting the objects a step before it stands for
// (heap.PathStep.Elided); such a step shows the depths it stands for.
func stepNumber(path []heap.PathStep, i int) string {
	depth := int64(i)
	for _, s := range path[:i] {
		depth += max(s.Elided-1, 0)
	}
	if n := path[i].Elided; n > 1 {
		return humanize.Comma(depth) + "–" + humanize.Comma(depth+n-1)
	}
	return humanize.Comma(depth)
}

// Write writes r as one HTML page to w.
func Write(w io.Writer, r Report) error {
	// The style sheet is hprofctl's own, embedded: the one value the page
	// trusts as it is. Nothing from the dump is ever marked so.
	v := view{Report: r, Policy: policy, Style: template.CSS(styleSheet), Chart: newChart(r.Dominators)}
	for k, s := range r.Leaks.Suspects {
		sv := suspectView{N: k + 1, LeakSuspect: s}
		for i, st := range s.Path {
			step := stepView{PathStep: st}
			if k < len(r.PathRetained) && i < len(r.PathRetained[k]) {
				step.Retained, step.Known = r.PathRetained[k][i], true
			}
			sv.Steps = append(sv.Steps, step)
		}
		v.Suspects = append(v.Suspects, sv)
	}
	return page.Execute(w, v)
}

// view is what the template renders: the report, and the parts of it
// laid out for the page.
type view struct {
	Report
	Policy   string
	Style    template.CSS
	Suspects []suspectView
	Chart    chart
}

// suspectView is a leak suspect with its path's steps.
type suspectView struct {
	N int
	heap.LeakSuspect
	Steps []stepView
}

// stepView is one step of a suspect's path and what it retains, when
// Known.
type stepView struct {
	heap.PathStep
	Retained int64
	Known    bool
}

// chart is the bar chart of the biggest dominators, drawn in SVG user
// units: each bar has a line of text above it.
type chart struct {
	Width, Height int
	Bars          []bar
}

// bar is one object of the chart: Len is its bar's length in units, Y
// the top of its text line.
type bar struct {
	Y, BarY, LabelY int
	Len             string
	LabelX          string
	Row             heap.DominatorRow
	Percent         float64
}

// The chart's geometry: a row is a text line and a bar below it; the
// bars span barSpace units for the biggest object, leaving room at the
// right for its size.
const (
	chartWidth = 760
	barSpace   = 620
	rowHeight  = 38
	barHeight  = 14
)

func newChart(d heap.DominatorReport) chart {
	c := chart{Width: chartWidth, Height: len(d.Rows)*rowHeight + 4}
	if len(d.Rows) == 0 {
		return c
	}
	biggest := max(d.Rows[0].RetainedBytes, 1)
	for i, row := range d.Rows {
		y := i * rowHeight
		length := float64(barSpace) * float64(max(row.RetainedBytes, 0)) / float64(biggest)
		b := bar{Y: y + 14, BarY: y + 20, LabelY: y + 31, Row: row,
			Len: strconv.FormatFloat(length, 'f', 1, 64), LabelX: strconv.FormatFloat(length+6, 'f', 1, 64)}
		b.Percent = d.ReachablePercent(row.RetainedBytes)
		c.Bars = append(c.Bars, b)
	}
	return c
}

// pct formats a percentage with two decimals.
func pct(p float64) string { return strconv.FormatFloat(p, 'f', 2, 64) + "%" }

// lockText names a lock: its kind, class and address or name.
func lockText(l threads.LockRef) string {
	parts := []string{strings.ReplaceAll(l.Kind, "_", " ")}
	if l.Class != "" {
		parts = append(parts, l.Class)
	}
	if l.ID != "" {
		parts = append(parts, l.ID)
	}
	if l.Name != "" {
		parts = append(parts, strconv.Quote(l.Name))
	}
	return strings.Join(parts, " ")
}

// when formats the time a dump was written, "unknown" when it does not
// say.
func when(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000 UTC")
}

// plural writes a count and a noun, with an s unless the count is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return humanize.Comma(int64(n)) + " " + noun + "s"
}
