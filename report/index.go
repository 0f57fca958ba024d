package report

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// IndexNote is what a heap command says about the index it used.
type IndexNote struct {
	Dump, Index string
	// Built reports that the command built the index, Took how long that
	// took; Rebuilt is why the index there was not used, Unsaved why the
	// one built could not be written, OverBudget which of the build's
	// tables stayed in memory past its budget.
	Built                        bool
	Took                         time.Duration
	Rebuilt, Unsaved, OverBudget string
	// Ignored says why indexes that exist were passed over: another
	// user's, one in a place others could write, one that cannot be read.
	Ignored []string
}

// IndexNotes writes on w, for a command that built an index, where it is
// and how long it took, why it replaced one that was there, or why it
// could not be written, and which of its tables stayed in memory past
// its budget; for any command, the indexes it passed over.
// Nothing more for a command that opened a fresh one.
func IndexNotes(w io.Writer, n IndexNote) {
	for _, why := range n.Ignored {
		fmt.Fprintf(w, "hprofctl: warning: ignored %s\n", why)
	}
	if !n.Built {
		return
	}
	if n.Rebuilt != "" {
		fmt.Fprintf(w, "hprofctl: the index was not used: %s\n", n.Rebuilt)
	}
	BudgetNote(w, n.OverBudget)
	took := seconds(n.Took)
	if n.Unsaved != "" {
		fmt.Fprintf(w, "hprofctl: warning: %s analysed in memory in %s; its index could not be written: %s\n", n.Dump, took, n.Unsaved)
		return
	}
	fmt.Fprintf(w, "hprofctl: indexed %s in %s: %s\n", n.Dump, took, n.Index)
}

// BudgetNote writes on w the warning that an index build's tables stayed
// in memory past its budget, overBudget saying which and why; nothing when
// it is empty.
func BudgetNote(w io.Writer, overBudget string) {
	if overBudget != "" {
		fmt.Fprintf(w, "hprofctl: warning: %s\n", overBudget)
	}
}

// IndexSummary describes an index: the dump, where the index is, its size
// and content, and how it was had.
type IndexSummary struct {
	Dump  string `json:"dump"`
	Index string `json:"index"`
	// Built reports whether this run built it (false: it was fresh).
	Built      bool    `json:"built"`
	Seconds    float64 `json:"seconds"`
	IndexBytes int64   `json:"index_bytes"`
	DumpBytes  int64   `json:"dump_bytes"`
	Objects    int64   `json:"objects"`
	References int64   `json:"references"`
	Classes    int64   `json:"classes"`
	// Unsaved says why the index could not be written, if so.
	Unsaved string `json:"unsaved,omitempty"`
	// Checked reports that a fresh index that this user's hprofctl had
	// not built (or that changed since) was checked whole and entered
	// into the ledger, so that questions take it without checks.
	Checked bool `json:"checked,omitempty"`
}

// Index renders what `hprofctl index` did.
func Index(w io.Writer, s IndexSummary, o Options) error {
	return Generate(w, indexSummary{s}, o)
}

// indexSummary is an IndexSummary as a Document.
type indexSummary struct{ IndexSummary }

// JSON writes the summary.
func (s indexSummary) JSON(w io.Writer) error { return writeJSON(w, s.IndexSummary) }

// CSV writes one name,value row per member of the JSON object, with
// exact numbers.
func (s indexSummary) CSV(w io.Writer, o Options) error {
	g := grid{columns: []column{{"name", text, "name"}, {"value", text, "value"}}}
	for _, r := range [][2]any{
		{"dump", s.Dump},
		{"index", s.Index},
		{"built", strconv.FormatBool(s.Built)},
		{"seconds", strconv.FormatFloat(s.Seconds, 'f', -1, 64)},
		{"index_bytes", s.IndexBytes},
		{"dump_bytes", s.DumpBytes},
		{"objects", s.Objects},
		{"references", s.References},
		{"classes", s.Classes},
		{"unsaved", s.Unsaved},
		{"checked", strconv.FormatBool(s.Checked)},
	} {
		if r[0] == "unsaved" && s.Unsaved == "" || r[0] == "checked" && !s.Checked {
			continue
		}
		g.rows = append(g.rows, []any{r[0], o.cell(count, r[1], true)})
	}
	return o.writeCSV(w, g)
}

// Table writes the summary, sizes made readable.
func (s indexSummary) Table(w io.Writer, o Options) error {
	state := "fresh: used as it was"
	if s.Checked {
		state = "fresh: checked whole, used as it was"
	}
	if s.Built {
		state = "built in " + seconds(time.Duration(s.Seconds*float64(time.Second)))
	}
	if s.Unsaved != "" {
		state = "not written: " + s.Unsaved
	}
	g := grid{columns: []column{{"index", text, ""}, {"", text, ""}}}
	for _, r := range [][2]any{
		{"dump", s.Dump},
		{"index", s.Index},
		{"state", state},
		{"index size", o.cell(bytes, s.IndexBytes, false)},
		{"dump size", o.cell(bytes, s.DumpBytes, false)},
		{"objects", o.cell(count, s.Objects, false)},
		{"references", o.cell(count, s.References, false)},
		{"classes", o.cell(count, s.Classes, false)},
	} {
		g.rows = append(g.rows, []any{r[0], r[1]})
	}
	return o.writeTable(w, g)
}

// seconds prints a duration in seconds to a tenth (milliseconds below
// one second).
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
