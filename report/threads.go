package report

import (
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/analysis"
)

// Threads renders threads with their states and stacks: JSON an array of
// threads with their frames; tables list every stack below the table.
func Threads(w io.Writer, threads []analysis.ThreadRow, o Options) error {
	if o.Format == JSON {
		if threads == nil {
			threads = []analysis.ThreadRow{}
		}
		return writeJSON(w, threads)
	}
	g := grid{columns: []column{{"serial", count}, {"name", text}, {"state", text}, {"frames", count}, {"top frame", text}},
		none: "no thread in the dump"}
	if o.Format == CSV {
		g.columns[4] = column{"frames", text}
		g.columns[3] = column{"depth", count}
	}
	for _, t := range threads {
		top := ""
		if len(t.Frames) > 0 {
			top = frameString(t.Frames[0])
		}
		if o.Format == CSV {
			top = joinFrames(t.Frames)
		}
		g.rows = append(g.rows, []any{int64(t.Serial), t.Name, t.State, len(t.Frames), top})
	}
	if err := o.render(w, g); err != nil || o.Format == CSV {
		return err
	}
	for _, t := range threads {
		if len(t.Frames) == 0 {
			continue
		}
		head := fmt.Sprintf("\n%q serial %d", t.Name, t.Serial)
		if t.State != "" {
			head += " " + t.State
		}
		if err := writeFrames(w, head+":", t.Frames); err != nil {
			return err
		}
	}
	return nil
}
