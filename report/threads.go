package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/threads"
)

// Threads renders threads with their states and stacks: JSON an array of
// threads with their frames; tables list every stack below the table.
// Rows with retained sizes (threads --retained) add a retained column, and
// each stack below the table lists the locals of each frame; in CSV a
// last column lists them as joinLocals does.
func Threads(w io.Writer, rows []threads.ThreadRow, o Options) error {
	return Generate(w, threadRows(rows), o)
}

// threadRows is threads as a Document.
type threadRows []threads.ThreadRow

// JSON writes the threads with their frames.
func (rows threadRows) JSON(w io.Writer) error { return writeJSON(w, nonNil(rows)) }

// retained tells rows with retained sizes (threads --retained).
func (rows threadRows) retained() bool {
	return len(rows) > 0 && rows[0].RetainedBytes != nil
}

// CSV writes one row per thread: its depth, its frames in one column, and
// with retained sizes its locals in a last one.
func (rows threadRows) CSV(w io.Writer, o Options) error {
	g := grid{columns: []column{{"serial", count, "serial"}, {"name", text, "name"}, {"state", text, "state"}, {"depth", count, "depth"}, {"frames", text, "frames"}}}
	if rows.retained() {
		g.columns = append(g.columns[:3], append([]column{{"retained bytes", bytes, "retained_bytes"}}, g.columns[3:]...)...)
		g.columns = append(g.columns, column{"locals", text, "locals"})
	}
	for _, t := range rows {
		row := []any{int64(t.Serial), t.Name, t.State, len(t.Frames), joinFrames(t.Frames)}
		if rows.retained() {
			row = append(row[:3], append([]any{*t.RetainedBytes}, row[3:]...)...)
			row = append(row, joinLocals(t.Frames))
		}
		g.rows = append(g.rows, row)
	}
	return o.writeCSV(w, g)
}

// Table writes one row per thread with its top frame, then each stack
// below the table.
func (rows threadRows) Table(w io.Writer, o Options) error {
	retained := rows.retained()
	g := grid{columns: []column{{"serial", count, "serial"}, {"name", text, "name"}, {"state", text, "state"}, {"frames", count, "frames"}, {"top frame", text, "top_frame"}},
		none: "no thread in the dump"}
	if retained {
		g.columns = append(g.columns[:3], append([]column{{"retained bytes", bytes, "retained_bytes"}}, g.columns[3:]...)...)
	}
	for _, t := range rows {
		top := ""
		if len(t.Frames) > 0 {
			top = frameString(t.Frames[0])
		}
		row := []any{int64(t.Serial), t.Name, t.State, len(t.Frames), top}
		if retained {
			row = append(row[:3], append([]any{*t.RetainedBytes}, row[3:]...)...)
		}
		g.rows = append(g.rows, row)
	}
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	for _, t := range rows {
		if len(t.Frames) == 0 {
			continue
		}
		head := fmt.Sprintf("\n%q serial %d", t.Name, t.Serial)
		if t.State != "" {
			head += " " + t.State
		}
		if retained {
			head += ", retains " + o.cell(bytes, *t.RetainedBytes, false)
		}
		if err := writeLocalFrames(w, head+":", t.Frames, o); err != nil {
			return err
		}
	}
	return nil
}

// writeLocalFrames writes a stack as writeFrames does, each frame followed
// by the objects it holds with their retained sizes.
func writeLocalFrames(w io.Writer, head string, frames []threads.StackFrame, o Options) error {
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte('\n')
	for _, f := range frames {
		b.WriteString("\tat ")
		b.WriteString(frameString(f))
		b.WriteByte('\n')
		for _, l := range f.Locals {
			fmt.Fprintf(&b, "\t    local %s %s, retains %s\n", l.ObjectID, l.Class, o.cell(bytes, l.RetainedBytes, false))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// joinLocals lists the locals of every frame in one CSV cell, as the
// frames column lists the frames: "; " between locals, each made of the
// frame's depth (0: innermost, the position in the frames column), the
// object id, its retained bytes and its class, separated by spaces, the
// class last, whatever it holds.
func joinLocals(frames []threads.StackFrame) string {
	var s []string
	for depth, f := range frames {
		for _, l := range f.Locals {
			s = append(s, strconv.Itoa(depth)+" "+l.ObjectID+" "+strconv.FormatInt(l.RetainedBytes, 10)+" "+l.Class)
		}
	}
	return strings.Join(s, "; ")
}
