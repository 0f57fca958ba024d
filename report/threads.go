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
	if o.Format == JSON {
		if rows == nil {
			rows = []threads.ThreadRow{}
		}
		return writeJSON(w, rows)
	}
	retained := len(rows) > 0 && rows[0].RetainedBytes != nil
	g := grid{columns: []column{{"serial", count}, {"name", text}, {"state", text}, {"frames", count}, {"top frame", text}},
		none: "no thread in the dump"}
	if o.Format == CSV {
		g.columns[4] = column{"frames", text}
		g.columns[3] = column{"depth", count}
	}
	if retained {
		g.columns = append(g.columns[:3], append([]column{{"retained bytes", bytes}}, g.columns[3:]...)...)
		if o.Format == CSV {
			g.columns = append(g.columns, column{"locals", text})
		}
	}
	for _, t := range rows {
		top := ""
		if len(t.Frames) > 0 {
			top = frameString(t.Frames[0])
		}
		if o.Format == CSV {
			top = joinFrames(t.Frames)
		}
		row := []any{int64(t.Serial), t.Name, t.State, len(t.Frames), top}
		if retained {
			row = append(row[:3], append([]any{*t.RetainedBytes}, row[3:]...)...)
			if o.Format == CSV {
				row = append(row, joinLocals(t.Frames))
			}
		}
		g.rows = append(g.rows, row)
	}
	if err := o.render(w, g); err != nil || o.Format == CSV {
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
