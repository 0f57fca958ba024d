package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
)

// Sites renders an allocation-site table. JSON is an array of rows, each
// with its allocating method and frames; tables list the stack trace of
// every row shown below the table (rolled up by method, the method is a
// column in place of the trace), CSV has a method column and joins the
// frames into one.
func Sites(w io.Writer, r profile.SitesReport, o Options) error {
	if o.Format == JSON {
		rows := r.Rows
		if rows == nil {
			rows = []profile.SiteRow{}
		}
		return writeJSON(w, rows)
	}
	g := grid{columns: []column{{"rank", count}, {"self", percent}, {"accum", percent},
		{"live bytes", bytes}, {"live objs", count}, {"alloc bytes", bytes}, {"alloc objs", count},
		{"trace", text}, {"class", text}}}
	switch r.Source {
	case profile.SitesFromHeapTraces:
		g.none = "no live object carries an allocation trace"
	case profile.SitesFromStackRoots:
		g.none = "no Java stack frame holds an object"
	default:
		g.none = "the file lists no allocation site"
	}
	byMethod := r.By == "method"
	switch {
	case o.Format == CSV:
		g.columns = append(g.columns, column{"method", text}, column{"frames", text})
	case byMethod:
		g.columns[7] = column{"method", text}
	}
	for _, s := range r.Rows {
		row := []any{s.Rank, s.Percent, s.CumPercent, s.LiveBytes, s.LiveInstances, s.AllocBytes, s.AllocInstances, traceLabel(s.Trace), s.Class}
		switch {
		case o.Format == CSV:
			row = append(row, s.Method, joinFrames(s.Frames))
		case byMethod:
			row[7] = methodLabel(s.Method)
		}
		g.rows = append(g.rows, row)
	}
	if o.Format == CSV {
		return o.render(w, g)
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
	if err := o.render(w, g); err != nil {
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
	case model.LineCompiled:
		return f.Method + "(Compiled method)"
	case model.LineNative:
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
