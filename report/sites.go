package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

// Sites renders an allocation-site table. JSON is an array of rows, each
// with its allocating method and frames; tables list the stack trace of
// every row shown below the table (rolled up by method, the method is a
// column in place of the trace), CSV has a method column and joins the
// frames into one.
func Sites(w io.Writer, r profile.SitesReport, o Options) error {
	return Generate(w, sites{r}, o)
}

// sites is an allocation-site table as a Document.
type sites struct{ profile.SitesReport }

// JSON writes the rows.
func (r sites) JSON(w io.Writer) error { return writeJSON(w, nonNil(r.Rows)) }

// CSV writes the rows with their trace, allocating method and frames.
func (r sites) CSV(w io.Writer, o Options) error {
	g := r.grid()
	g.columns = append(g.columns, column{"method", text, "method"}, column{"frames", text, "frames"})
	for k, s := range r.Rows {
		g.rows[k] = append(g.rows[k], s.Method, joinFrames(s.Frames))
	}
	return o.writeCSV(w, g)
}

// Table writes where the numbers come from, the rows (rolled up by
// method, the method in place of the trace) with the total, and the
// stack trace of each row below.
func (r sites) Table(w io.Writer, o Options) error {
	g := r.grid()
	if r.By == "method" {
		g.columns[7] = column{"method", text, "method"}
		for k, s := range r.Rows {
			g.rows[k][7] = methodLabel(s.Method)
		}
	}
	label := "total"
	if len(r.Rows) < r.Sites {
		label = "total of all " + itoa(r.Sites) + " sites"
	}
	g.footer = []any{"", "", "", r.Total.LiveBytes, r.Total.LiveInstances, r.Total.AllocBytes, r.Total.AllocInstances, "", label}
	if _, err := fmt.Fprintf(w, "Source: %s — %s\n", r.Source, r.Note); err != nil {
		return err
	}
	if r.Shares != "" {
		if _, err := fmt.Fprintf(w, "Percent: %s\n", r.Shares); err != nil {
			return err
		}
	}
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	for _, s := range r.Rows {
		if len(s.Frames) == 0 {
			continue
		}
		head := fmt.Sprintf("\n#%d %s", s.Rank, s.Class)
		if s.Trace != 0 {
			head += fmt.Sprintf(", trace %d", s.Trace)
		}
		if s.Thread != "" {
			head += fmt.Sprintf(", thread %q", s.Thread)
		}
		if err := writeFrames(w, head+":", s.Frames); err != nil {
			return err
		}
	}
	return nil
}

// grid is the rows with their trace, the line a table without rows
// prints saying why the source has none.
func (r sites) grid() grid {
	g := grid{columns: []column{{"rank", count, "rank"}, {"self", percent, "percent"}, {"accum", percent, "cumulative_percent"},
		{"live bytes", bytes, "live_bytes"}, {"live objs", count, "live_instances"}, {"alloc bytes", bytes, "alloc_bytes"}, {"alloc objs", count, "alloc_instances"},
		{"trace", text, "trace"}, {"class", text, "class"}}}
	switch r.Source {
	case profile.SitesFromHeapTraces:
		g.none = "no live object carries an allocation trace"
	case profile.SitesFromStackRoots:
		g.none = "no Java stack frame holds an object"
	default:
		g.none = "the file lists no allocation site"
	}
	for _, s := range r.Rows {
		g.rows = append(g.rows, []any{s.Rank, s.Percent, s.CumPercent, s.LiveBytes, s.LiveInstances, s.AllocBytes, s.AllocInstances, traceLabel(s.Trace), s.Class})
	}
	return g
}

// methodLabel names an allocating method, or says that the trace does
// not reach it.
func methodLabel(m string) string {
	if m == "" {
		return "(not in the recorded trace)"
	}
	return m
}

// FrameString prints a frame as a Java stack trace line does:
// "pkg.Class.method(File.java:12)", "(Native Method)", "(Unknown Source)".
func FrameString(f threads.StackFrame) string { return frameString(f) }

// frameString prints a frame as a Java stack trace line does.
func frameString(f threads.StackFrame) string {
	file := f.File
	if file == "" {
		file = "Unknown Source"
	}
	switch f.Line {
	case thread.LineCompiled:
		return f.Method + "(Compiled method)"
	case thread.LineNative:
		return f.Method + "(Native Method)"
	}
	if f.Line > 0 {
		return f.Method + "(" + file + ":" + strconv.Itoa(int(f.Line)) + ")"
	}
	return f.Method + "(" + file + ")"
}

func joinFrames(frames []threads.StackFrame) string {
	s := make([]string, len(frames))
	for i, f := range frames {
		s[i] = frameString(f)
	}
	return strings.Join(s, "; ")
}

func writeFrames(w io.Writer, head string, frames []threads.StackFrame) error {
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte('\n')
	for _, f := range frames {
		b.WriteString("\tat ")
		b.WriteString(frameString(f))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func traceLabel(serial uint32) string {
	if serial == 0 {
		return ""
	}
	return strconv.FormatUint(uint64(serial), 10)
}
