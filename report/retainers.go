package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Retainers renders paths from GC roots: JSON is {"paths": [...]}; tables
// and CSV show one row per step, the root first, and tables end with the
// targets no path reaches.
func Retainers(w io.Writer, r heap.Retainers, o Options) error {
	return Generate(w, retainers{r}, o)
}

// retainers is paths from GC roots as a Document.
type retainers struct{ heap.Retainers }

// JSON writes the paths.
func (r retainers) JSON(w io.Writer) error { return writeJSON(w, r.Retainers) }

// CSV writes one row per step, each with its path's number.
func (r retainers) CSV(w io.Writer, o Options) error { return o.writeCSV(w, r.grid(false)) }

// Table writes one row per step, each step below the first indented
// under the one before, and the targets no path reaches.
func (r retainers) Table(w io.Writer, o Options) error {
	g := r.grid(true)
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	if r.Unreached > 0 && len(g.rows) > 0 {
		_, err := fmt.Fprintf(w, "%d of %d targets have no path from a GC root (unreachable)\n", r.Unreached, r.Targets)
		return err
	}
	return nil
}

// grid is one row per step of each path, the root's row describing the
// root; indent numbers only the root's row and indents each step below
// the one before. On an Android dump each step says its heap, in a last
// column.
func (r retainers) grid(indent bool) grid {
	g := grid{columns: []column{{"path", count, "path"}, {"objects", count, "objects"}, {"via", text, "via"}, {"object", ident, "object_id"}, {"class", text, "class"}, {"root", text, "root"}}}
	switch r.Targets {
	case 0:
		g.none = "no object matches"
	case 1:
		g.none = "no path from a GC root to the target (unreachable)"
	default:
		g.none = fmt.Sprintf("no path from a GC root to any of the %d targets (unreachable)", r.Targets)
	}
	withHeap := false
	for _, p := range r.Paths {
		for _, step := range p.Chain {
			withHeap = withHeap || step.Heap != ""
		}
	}
	if withHeap {
		g.columns = append(g.columns, column{"heap", text, "heap"})
	}
	for k, p := range r.Paths {
		for s, step := range p.Chain {
			row := []any{k + 1, nil, step.Via, step.ObjectID, step.Class, ""}
			if withHeap {
				row = append(row, step.Heap)
			}
			if s == 0 {
				row[5] = rootDescription(p)
				if r.Merged {
					row[1] = p.Objects
				}
			} else if indent {
				row[0] = ""
				row[2] = strings.Repeat(" ", min(s-1, 12)) + "→ " + step.Via
			}
			g.rows = append(g.rows, row)
		}
	}
	return g
}

// rootDescription says what a path's GC root is: its kind, the thread and
// frame of a stack root.
func rootDescription(p heap.RetainerPath) string {
	root := []string{p.RootKind}
	switch {
	case p.RootThreadAllocator:
		root = append(root, "thread "+p.RootThread+" (which allocated it)")
	case p.RootThread != "":
		root = append(root, "thread "+p.RootThread)
	}
	switch {
	case p.RootFrame != "":
		root = append(root, "at "+p.RootFrame)
	case p.RootFrameDepth != nil && p.RootThread == "":
		root = append(root, fmt.Sprintf("frame %d of a thread the dump does not name", *p.RootFrameDepth))
	case p.RootFrameDepth != nil:
		root = append(root, fmt.Sprintf("frame %d of a stack the dump does not record", *p.RootFrameDepth))
	}
	return strings.Join(root, ", ")
}
