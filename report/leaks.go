package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Leaks renders leak suspects. JSON is the array of suspects; CSV has one
// row per suspect; a table lists the suspects, then for each one the
// biggest classes beneath its accumulation point and its path from a GC
// root.
func Leaks(w io.Writer, l heap.LeakReport, o Options) error {
	return Generate(w, leaks{l}, o)
}

// leaks is a leak report as a Document.
type leaks struct{ heap.LeakReport }

// JSON writes the suspects.
func (l leaks) JSON(w io.Writer) error { return writeJSON(w, nonNil(l.Suspects)) }

// CSV writes one row per suspect.
func (l leaks) CSV(w io.Writer, o Options) error { return o.writeCSV(w, l.grid(o, true)) }

// Table writes the threshold, the suspects, and each one's biggest
// classes and path.
func (l leaks) Table(w io.Writer, o Options) error {
	g := l.grid(o, false)
	heap := "reachable heap"
	if l.KeptUnreachable {
		heap = "heap, unreachable objects included"
	}
	if l.Heaps != nil {
		heap = "memory the top objects of heap " + strings.Join(l.Heaps, ", ") + " retain"
	}
	threshold, total := o.cell(ratio, l.Threshold, false), o.cell(bytes, l.TotalBytes, false)
	g.none = fmt.Sprintf("No leak suspect: no object or class retains more than %s of the %s (%s).", threshold, heap, total)
	if len(l.Suspects) > 0 {
		if _, err := fmt.Fprintf(w, "Leak suspects: retaining more than %s of the %s (%s)\n", threshold, heap, total); err != nil {
			return err
		}
	}
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	for k, s := range l.Suspects {
		if err := leakDetails(w, k+1, s, o); err != nil {
			return err
		}
	}
	return nil
}

// grid is one row per suspect, with its heap on an Android dump. A table
// names the suspect in one column (its object id or its instances) and
// shows its label as its class; CSV gives each value a column.
func (l leaks) grid(o Options, forCSV bool) grid {
	g := grid{columns: []column{{"#", count, ""}, {"retained bytes", bytes, "retained_bytes"}, {"% of heap", percent, "percent"}, {"suspect", ident, ""}, {"class", text, ""},
		{"accumulation point", ident, "accumulation_point_object_id"}, {"accumulation class", text, "accumulation_point_class"}, {"accumulated bytes", bytes, "accumulation_point_retained_bytes"}}}
	if forCSV {
		g.columns = append(g.columns[:3], append([]column{{"object", text, "object_id"}, {"instances", count, "instances"}, {"class", text, "class"}, {"label", text, "label"}}, g.columns[5:]...)...)
	}
	if l.Heaps != nil {
		g.columns = append(g.columns, column{"heap", text, "heap"})
	}
	for k, s := range l.Suspects {
		var row []any
		if forCSV {
			var instances any
			if s.Instances > 0 {
				instances = s.Instances
			}
			row = []any{k + 1, s.RetainedBytes, s.Percent, s.ObjectID, instances, s.Class, s.Label, "", "", nil}
		} else {
			suspect := s.ObjectID
			if s.Instances > 0 {
				suspect = fmt.Sprintf("%s instances", o.cell(count, s.Instances, false))
			}
			row = []any{k + 1, s.RetainedBytes, s.Percent, suspect, s.Name(), "", "", nil}
		}
		if a := s.AccumulationPoint; a != nil {
			n := len(row)
			row[n-3], row[n-2], row[n-1] = a.ObjectID, a.Class, a.RetainedBytes
		}
		if l.Heaps != nil {
			row = append(row, s.Heap)
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// leakDetails renders one suspect's biggest classes and path.
func leakDetails(w io.Writer, n int, s heap.LeakSuspect, o Options) error {
	beneath := "objects it immediately dominates"
	switch {
	case s.Instances > 0:
		beneath = "objects its instances immediately dominate"
	case s.AccumulationPoint != nil:
		beneath = "objects its accumulation point immediately dominates"
	}
	if _, err := fmt.Fprintf(w, "\nSuspect %d, %s: biggest classes of the %s\n", n, s.Name(), beneath); err != nil {
		return err
	}
	g := grid{columns: []column{{"objects", count, "objects"}, {"retained bytes", bytes, "retained_bytes"}, {"% of heap", percent, "percent"}, {"class", text, "class"}},
		none: "none: there are no " + beneath}
	for _, c := range s.BiggestClasses {
		g.rows = append(g.rows, []any{c.Objects, c.RetainedBytes, c.Percent, c.Class})
	}
	if err := o.writeTable(w, g); err != nil {
		return err
	}
	if len(s.Path) == 0 {
		_, err := fmt.Fprintf(w, "Suspect %d: no path from a GC root (unreachable)\n", n)
		return err
	}
	to := "the suspect"
	switch {
	case s.Instances > 0:
		to = "an instance"
	case s.AccumulationPoint != nil:
		to = "the accumulation point, through the suspect"
	}
	if _, err := fmt.Fprintf(w, "Suspect %d: shortest path from a GC root to %s\n", n, to); err != nil {
		return err
	}
	return retainers{heap.Retainers{Targets: 1, Paths: []heap.RetainerPath{
		{RootKind: s.RootKind, RootThread: s.RootThread, RootFrame: s.RootFrame, Objects: 1, Chain: s.Path}}}}.Table(w, o)
}
