package profile

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// CPUOptions choose how a CPU profile is ranked and cut.
type CPUOptions struct {
	// Depth keeps the innermost Depth frames of each trace; 0 keeps all.
	Depth int
	// Top keeps the first Top rows (traces or methods); 0 keeps all.
	Top int
}

// CPUTrace is one trace of a CPU profile.
type CPUTrace struct {
	Rank int `json:"rank"`
	// SelfPercent is the trace's share of the samples (of the time, for
	// CPU TIME); CumPercent adds up the shares of the rows before.
	SelfPercent float64 `json:"self_percent"`
	CumPercent  float64 `json:"cumulative_percent"`
	// Count is samples (calls for CPU TIME).
	Count  int64                `json:"count"`
	Trace  uint32               `json:"trace"`
	Frames []threads.StackFrame `json:"frames"`
}

// CPUMethod is one method of a CPU profile rolled up by method.
type CPUMethod struct {
	Rank   int    `json:"rank"`
	Method string `json:"method"`
	// SelfPercent is the share of the traces whose innermost frame is the
	// method; TotalPercent the share of those the method appears in.
	SelfPercent  float64 `json:"self_percent"`
	TotalPercent float64 `json:"total_percent"`
	// SelfCount is the samples in which the method is the innermost
	// frame (for CPU TIME: its calls); TotalCount the samples it appears
	// in, none for CPU TIME, whose counts are calls of the innermost
	// method, which do not add up per method.
	SelfCount  int64 `json:"self_count"`
	TotalCount int64 `json:"total_count,omitempty"`
}

// CPUReport is a CPU profile: traces ranked by self share, and methods
// with self and cumulative totals.
type CPUReport struct {
	// Kind is "samples" (CPU SAMPLES) or "times" (CPU TIME: counts are
	// calls, Total milliseconds).
	Kind  string
	Total int64
	// Traces counts the traces before Top; Rows are those kept.
	Traces  int
	Rows    []CPUTrace
	Methods []CPUMethod
}

// CPU ranks the traces of p's CPU table by their share of the total, and
// totals them per method: self where the method is the innermost frame,
// total wherever in the trace it is (once per trace, recursion counted
// once).
func CPU(p *model.Profile, o CPUOptions) (CPUReport, error) {
	t := p.CPU
	if t == nil {
		return CPUReport{}, fmt.Errorf("%s: the file has no CPU SAMPLES or CPU TIME", p.Source.File)
	}
	r := CPUReport{Kind: "samples", Total: t.Total}
	if t.Times {
		r.Kind = "times"
	}
	type method struct {
		self, total           float64
		selfCount, totalCount int64
	}
	methods := map[string]*method{}
	get := func(name string) *method {
		m := methods[name]
		if m == nil {
			m = &method{}
			methods[name] = m
		}
		return m
	}
	for _, row := range t.Rows {
		tr := CPUTrace{SelfPercent: row.Self, Count: row.Count, Trace: row.Trace, Frames: []threads.StackFrame{}}
		var frames []thread.Frame
		if trace := p.Trace(row.Trace); trace != nil {
			frames = trace.Frames
			tr.Frames = threads.ReportFrames(frames, o.Depth)
		}
		r.Rows = append(r.Rows, tr)
		seen := map[string]bool{}
		for i, f := range frames {
			name := threads.MethodName(f)
			m := get(name)
			if i == 0 {
				m.self += row.Self
				m.selfCount += row.Count
			}
			if !seen[name] {
				seen[name] = true
				m.total += row.Self
				if !t.Times {
					m.totalCount += row.Count
				}
			}
		}
	}
	sort.SliceStable(r.Rows, func(i, j int) bool {
		a, b := r.Rows[i], r.Rows[j]
		if a.SelfPercent != b.SelfPercent {
			return a.SelfPercent > b.SelfPercent
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Trace < b.Trace
	})
	var cum float64
	for i := range r.Rows {
		r.Rows[i].Rank = i + 1
		cum += r.Rows[i].SelfPercent
		r.Rows[i].CumPercent = cum
	}
	for name, m := range methods {
		r.Methods = append(r.Methods, CPUMethod{Method: name, SelfPercent: m.self, TotalPercent: m.total, SelfCount: m.selfCount, TotalCount: m.totalCount})
	}
	sort.Slice(r.Methods, func(i, j int) bool {
		a, b := r.Methods[i], r.Methods[j]
		if a.SelfPercent != b.SelfPercent {
			return a.SelfPercent > b.SelfPercent
		}
		if a.TotalPercent != b.TotalPercent {
			return a.TotalPercent > b.TotalPercent
		}
		return a.Method < b.Method
	})
	for i := range r.Methods {
		r.Methods[i].Rank = i + 1
	}
	r.Traces = len(r.Rows)
	if o.Top > 0 {
		if len(r.Rows) > o.Top {
			r.Rows = r.Rows[:o.Top]
		}
		if len(r.Methods) > o.Top {
			r.Methods = r.Methods[:o.Top]
		}
	}
	return r, nil
}

// Milliseconds is the time of trace t of a CPU TIME profile, in whole
// milliseconds: the agent prints each trace's share of the total, not its
// time, so the time is the share of Total, rounded to the nearest.
func (r CPUReport) Milliseconds(t CPUTrace) int64 {
	return int64(t.SelfPercent*float64(r.Total)/100 + 0.5)
}

// CallNode is a frame of a CPU profile's call tree: the frame's name, the
// samples (calls, for CPU TIME) of the traces through it at this place
// and their share of the whole tree's, and its callees.
type CallNode struct {
	Name    string
	Count   int64
	Percent float64
	// Callees are ordered from the biggest count, ties by name, so the
	// same profile gives the same tree.
	Callees []*CallNode
}

// CallTree merges the traces of r (Rows, those kept) into one tree, the
// outermost frame below the root, each frame under its caller: frames
// that name gives the same name to, at the same place under the same
// callers, are one node. The root stands for all the traces and has no
// name.
func (r CPUReport) CallTree(name func(threads.StackFrame) string) *CallNode {
	root := &CallNode{}
	for _, t := range r.Rows {
		root.Count += t.Count
		n := root
		for i := len(t.Frames) - 1; i >= 0; i-- {
			n = n.callee(name(t.Frames[i]))
			n.Count += t.Count
		}
	}
	root.finish(root.Count)
	return root
}

// callee is n's callee of that name, added when it has none.
func (n *CallNode) callee(name string) *CallNode {
	for _, c := range n.Callees {
		if c.Name == name {
			return c
		}
	}
	c := &CallNode{Name: name}
	n.Callees = append(n.Callees, c)
	return c
}

// finish sets the shares of n and the nodes below it, of whole, and
// orders every node's callees.
func (n *CallNode) finish(whole int64) {
	if whole > 0 {
		n.Percent = 100 * float64(n.Count) / float64(whole)
	}
	slices.SortStableFunc(n.Callees, func(a, b *CallNode) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name))
	})
	for _, c := range n.Callees {
		c.finish(whole)
	}
}
