package profile

import (
	"fmt"
	"math"
	"sort"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// Where the numbers of a sites report come from.
const (
	// SitesFromRecords: the agent's own SITES section or ALLOC_SITES record.
	SitesFromRecords = "sites-record"
	// SitesFromHeapTraces: the live objects of an agent heap dump, whose
	// objects carry allocation traces, counted by class and trace.
	SitesFromHeapTraces = "heap-traces"
	// SitesFromStackRoots: no allocation traces; the objects that stack
	// frames root, counted by class and frame, with retained sizes.
	SitesFromStackRoots = "stack-roots"
)

// SiteOptions choose how allocation sites are grouped, ordered and cut.
type SiteOptions struct {
	// By rolls sites up: "" or "site" (class and trace, as the agent),
	// "class", "trace" or "method" (the method that executed new, see
	// SiteRow.Method).
	By string
	// Sort is "live" (default: live bytes) or "alloc" (allocated bytes).
	Sort string
	// Depth keeps the innermost Depth frames of each trace; 0 keeps all.
	Depth int
	// Top keeps the first Top rows; 0 keeps all.
	Top int
	// Size chooses the shallow sizes of heap objects (heap-traces and
	// stack-roots sources).
	Size model.SizeMode
	// Retention is the heap's dominator tree in size mode Size when the
	// caller has it (from an index); nil: Sites builds it when the
	// stack-roots source needs it.
	Retention *graph.Retention
}

// SiteRow is one allocation site (or one group of sites, rolled up).
type SiteRow struct {
	Rank           int    `json:"rank"`
	Class          string `json:"class"`
	LiveBytes      int64  `json:"live_bytes"`
	LiveInstances  int64  `json:"live_instances"`
	AllocBytes     int64  `json:"alloc_bytes"`
	AllocInstances int64  `json:"alloc_instances"`
	// Percent and CumPercent are the row's share and the running share
	// of the rows so far: of all live bytes for the agent's sites (as
	// the agent prints them, whatever the order; PercentOf says of what
	// total), else of the total of the order's metric.
	Percent    float64 `json:"percent"`
	CumPercent float64 `json:"cumulative_percent"`
	// PercentOf says what the percentages are shares of, when the rows
	// alone do not tell (the agent's sites).
	PercentOf string `json:"percent_of,omitempty"`
	// Trace is the stack trace serial; 0 for rows rolled up by class or
	// method.
	Trace uint32 `json:"trace"`
	// Thread names the thread of a stack-roots row.
	Thread string `json:"thread,omitempty"`
	// Method is the method that allocated the objects, "package.Class.
	// method": the first frame of the trace below the constructors of
	// the allocated class and its superclasses (the agent's traces start
	// in the innermost of them); for stack-roots rows the rooting frame's
	// method. Empty when the trace is too short to hold it.
	Method string               `json:"method,omitempty"`
	Frames []threads.StackFrame `json:"frames"`
	Source string               `json:"source"`

	// printed marks Percent and CumPercent as the agent's own; order is
	// the row's place in the agent's table.
	printed bool
	order   int
}

// SitesReport is a ranked allocation-site table.
type SitesReport struct {
	// Source says where the numbers come from (SitesFrom...).
	Source string
	// By is how the rows are rolled up (SiteOptions.By).
	By string
	// Note says what the source can and cannot tell, for people.
	Note string
	// Rows are the sites kept; Sites counts the sites before Top.
	Rows  []SiteRow
	Sites int
	// Total sums every site; percentages are shares of its live (or
	// allocated) bytes, unless WholeLive is set.
	Total SiteRow
	// WholeLive, when not 0, is the agent's total of all live bytes, of
	// which the percentages are shares whatever the order (the agent's
	// own percent); Shares says how that total was obtained.
	WholeLive int64
	Shares    string
}

// Sites ranks the allocation sites from the best source a file has: the
// agent's own site table (SitesFromProfile), else the allocation traces of
// an agent heap dump (SitesFromHeap), else the objects stack frames root,
// with the bytes each retains under o.Size (SitesFromRoots). h may be nil
// when p has a site table.
func Sites(p *model.Profile, h *model.Heap, o SiteOptions) (SitesReport, error) {
	switch {
	case p.Sites != nil:
		return SitesFromProfile(p, o)
	case len(h.ObjectAllocs()) > 0:
		return SitesFromHeap(h, p, o)
	}
	r := o.Retention
	if r == nil {
		var err error
		if r, err = graph.ComputeRetention(h, graph.RetentionOptions{Size: o.Size}); err != nil {
			return SitesReport{}, err
		}
	}
	return SitesFromRoots(h, r, o)
}

// SitesFromProfile ranks the agent's own allocation-site table. Its
// percentages are the agent's: shares of all live bytes, a total the
// ALLOC_SITES record carries; an ASCII SITES section prints each site's
// shares but no total, so the un-rolled-up table keeps the printed
// shares and rolled-up views derive the total from the listed sites' live
// bytes and the last printed accum.
func SitesFromProfile(p *model.Profile, o SiteOptions) (SitesReport, error) {
	t := p.Sites
	if t == nil {
		return SitesReport{}, fmt.Errorf("%s: the file has no allocation sites", p.Source.File)
	}
	rows := make([]SiteRow, len(t.Sites))
	for i, s := range t.Sites {
		rows[i] = SiteRow{Class: s.Class, Trace: s.Trace, LiveBytes: s.LiveBytes, LiveInstances: s.LiveInstances,
			AllocBytes: s.AllocBytes, AllocInstances: s.AllocInstances, order: i}
		if t.Printed {
			rows[i].Percent, rows[i].CumPercent, rows[i].printed = s.Self, s.Accum, true
		}
	}
	total := SiteRow{LiveBytes: t.LiveBytes, LiveInstances: t.LiveInstances, AllocBytes: t.AllocBytes, AllocInstances: t.AllocInstances}
	r := SitesReport{Source: SitesFromRecords, Note: fmt.Sprintf("allocation sites as the hprof agent recorded them (ordered by %s); "+
		"the agent counts each class's java.lang.Class object as one more object of that class, at the trace that defined the class", t.OrderedBy)}
	switch {
	case !t.Printed && t.LiveBytes > 0:
		r.WholeLive = t.LiveBytes
		r.Shares = fmt.Sprintf("shares of all %d live bytes, the ALLOC_SITES record's total", t.LiveBytes)
	case len(t.Sites) > 0 && t.Sites[len(t.Sites)-1].Accum > 0:
		// The last accum is the listed sites' share of all live bytes,
		// printed to 0.01%: the most precise way back to the total.
		accum := t.Sites[len(t.Sites)-1].Accum
		r.WholeLive = int64(math.Round(float64(t.LiveBytes) * 100 / accum))
		if o.By == "" || o.By == "site" {
			r.Shares = "shares of all live bytes as the agent printed them (self, accum)"
		} else {
			r.Shares = fmt.Sprintf("shares of all live bytes, about %d: the file prints no total, so it is derived from the listed sites' %d live bytes and the last accum the file prints (%.2f%%)",
				r.WholeLive, t.LiveBytes, accum)
		}
	}
	return finishSites(r, rows, total, p, o)
}

// SitesFromHeap counts the live objects of an agent heap dump by class
// and allocation trace (model.Heap.ObjectAllocs), the traces resolved
// through p: the heap's own profile for a binary file, the profile
// LoadASCII reads for an ASCII one. A heap dump holds only the live
// objects, so allocated equals live.
func SitesFromHeap(h *model.Heap, p *model.Profile, o SiteOptions) (SitesReport, error) {
	allocs := h.ObjectAllocs()
	if len(allocs) == 0 {
		return SitesReport{}, fmt.Errorf("%s: the heap objects carry no allocation traces", h.Source.File)
	}
	type key struct {
		class model.ClassIndex
		trace uint32
	}
	index := map[key]int{}
	var rows []SiteRow
	var total SiteRow
	for _, a := range allocs {
		var size int64
		if h.Classes[a.Class].IsArray() {
			size = h.ArrayBytes(a.Class, int64(a.Length), o.Size)
		} else {
			size = h.InstanceBytes(a.Class, o.Size)
		}
		k := key{a.Class, a.Trace}
		i, ok := index[k]
		if !ok {
			i = len(rows)
			index[k] = i
			rows = append(rows, SiteRow{Class: h.Classes[a.Class].Name, Trace: a.Trace})
		}
		rows[i].LiveInstances += a.Count
		rows[i].LiveBytes += a.Count * size
		total.LiveInstances += a.Count
		total.LiveBytes += a.Count * size
	}
	for i := range rows {
		rows[i].AllocBytes, rows[i].AllocInstances = rows[i].LiveBytes, rows[i].LiveInstances
	}
	total.AllocBytes, total.AllocInstances = total.LiveBytes, total.LiveInstances
	r := SitesReport{Source: SitesFromHeapTraces, Note: "live objects of the heap dump by class and allocation trace (a heap dump records no freed objects, so allocated = live)"}
	return finishSites(r, rows, total, p, o)
}

// SitesFromRoots is what a dump without allocation traces tells about
// where objects come from: the objects that Java stack frames root (local
// variables and operands), by class and frame, each with the bytes it
// retains. r is the dominator tree of h.
func SitesFromRoots(h *model.Heap, r *graph.Retention, o SiteOptions) (SitesReport, error) {
	type key struct {
		class  model.ClassIndex
		thread int32
		frame  int32
	}
	index := map[key]int{}
	seen := map[model.ObjectIndex]bool{}
	var rows []SiteRow
	var frames [][]thread.Frame
	var total SiteRow
	for _, rt := range h.Roots {
		if rt.Kind != model.RootJavaFrame || rt.Object == model.NoObject || rt.Thread < 0 || seen[rt.Object] || !r.Reachable(rt.Object) {
			continue
		}
		seen[rt.Object] = true
		c := h.ClassOf(rt.Object)
		k := key{c, rt.Thread, rt.Frame}
		i, ok := index[k]
		if !ok {
			i = len(rows)
			index[k] = i
			th := h.Threads[rt.Thread]
			row := SiteRow{Class: h.Classes[c].Name, Thread: threadLabel(th)}
			var fr []thread.Frame
			if th.Trace >= 0 {
				t := h.Traces[th.Trace]
				row.Trace = t.Serial
				if rt.Frame >= 0 && int(rt.Frame) < len(t.Frames) {
					fr = t.Frames[rt.Frame:]
				}
			}
			rows = append(rows, row)
			frames = append(frames, fr)
		}
		b := r.RetainedBytes(rt.Object)
		rows[i].LiveInstances++
		rows[i].LiveBytes += b
		total.LiveInstances++
		total.LiveBytes += b
	}
	for i := range rows {
		rows[i].Frames = threads.ReportFrames(frames[i], 0)
	}
	total.AllocBytes, total.AllocInstances = total.LiveBytes, total.LiveInstances
	for i := range rows {
		rows[i].AllocBytes, rows[i].AllocInstances = rows[i].LiveBytes, rows[i].LiveInstances
	}
	rep := SitesReport{Source: SitesFromStackRoots, Note: "this dump records no allocation sites (its objects carry no allocation traces, as in every HotSpot dump); " +
		"shown instead: the objects Java stack frames hold, by class and frame, with the bytes each retains (live = retained; instances = objects the frames root)"}
	withFrames := o
	withFrames.Depth = -1 // frames already cut to the rooting frame
	rep, err := finishSites(rep, rows, total, nil, withFrames)
	if err != nil {
		return rep, err
	}
	if o.Depth > 0 {
		for i := range rep.Rows {
			if len(rep.Rows[i].Frames) > o.Depth {
				rep.Rows[i].Frames = rep.Rows[i].Frames[:o.Depth]
			}
		}
	}
	return rep, nil
}

func threadLabel(t model.Thread) string {
	if t.Name != "" {
		return t.Name
	}
	return fmt.Sprintf("thread %d", t.Serial)
}

// finishSites resolves frames (from p's traces, unless Depth < 0 says the
// rows have theirs), rolls up, sorts, ranks and cuts.
func finishSites(r SitesReport, rows []SiteRow, total SiteRow, p *model.Profile, o SiteOptions) (SitesReport, error) {
	r.By = o.By
	for i := range rows {
		switch {
		case p != nil && o.Depth >= 0:
			if t := p.Trace(rows[i].Trace); t != nil {
				rows[i].Frames = threads.ReportFrames(t.Frames, o.Depth)
				if k := allocatingFrame(rows[i].Class, t.Frames); k >= 0 {
					rows[i].Method = threads.MethodName(t.Frames[k])
				}
			}
		case o.Depth < 0 && len(rows[i].Frames) > 0:
			rows[i].Method = rows[i].Frames[0].Method
		}
	}
	switch o.By {
	case "", "site":
	case "class":
		rows = rollUp(rows, func(s *SiteRow) string { return s.Class }, func(s *SiteRow) { s.Trace, s.Frames, s.Thread = 0, nil, "" })
	case "trace":
		rows = rollUp(rows, func(s *SiteRow) string { return fmt.Sprint(s.Trace, "\x00", s.Thread) }, func(s *SiteRow) {})
	case "method":
		rows = rollUp(rows, func(s *SiteRow) string { return s.Method }, func(s *SiteRow) {
			s.Trace, s.Thread, s.Frames = 0, "", []threads.StackFrame{}
		})
	default:
		return r, fmt.Errorf("unknown --by %q: expected class, trace or method", o.By)
	}
	var metric func(s *SiteRow) int64
	switch o.Sort {
	case "", "live":
		metric = func(s *SiteRow) int64 { return s.LiveBytes }
	case "alloc":
		metric = func(s *SiteRow) int64 { return s.AllocBytes }
	default:
		return r, fmt.Errorf("unknown --sort %q: expected live or alloc", o.Sort)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := metric(&rows[i]), metric(&rows[j])
		if a != b {
			return a > b
		}
		if rows[i].printed && rows[j].printed {
			return rows[i].order < rows[j].order
		}
		if rows[i].Class != rows[j].Class {
			return rows[i].Class < rows[j].Class
		}
		return rows[i].Trace < rows[j].Trace
	})
	whole := metric(&total)
	if r.WholeLive > 0 {
		whole = r.WholeLive
		metric = func(s *SiteRow) int64 { return s.LiveBytes }
	}
	var cum int64
	var cumShare float64
	last := -1 // the latest place in the agent's table among rows[:i+1]
	for i := range rows {
		rows[i].Rank = i + 1
		rows[i].Source = r.Source
		rows[i].PercentOf = r.Shares
		cum += metric(&rows[i])
		last = max(last, rows[i].order)
		switch {
		case rows[i].printed:
			// The printed accum holds while the rows so far are the
			// agent's first i+1; else the running share of the total, or
			// (no total) the sum of the printed shares.
			cumShare += rows[i].Percent
			switch {
			case last == i:
			case r.WholeLive > 0:
				rows[i].CumPercent = 100 * float64(cum) / float64(whole)
			default:
				rows[i].CumPercent = cumShare
			}
		case whole > 0:
			rows[i].Percent = 100 * float64(metric(&rows[i])) / float64(whole)
			rows[i].CumPercent = 100 * float64(cum) / float64(whole)
		}
		if rows[i].Frames == nil {
			rows[i].Frames = []threads.StackFrame{}
		}
	}
	r.Sites = len(rows)
	total.Class = "total"
	total.Source = r.Source
	r.Total = total
	if o.Top > 0 && len(rows) > o.Top {
		rows = rows[:o.Top]
	}
	r.Rows = rows
	return r, nil
}

// rollUp merges the rows of equal key, in order of first appearance; the
// class of a merged row of several classes says how many; reset clears
// what no longer applies to a merged row.
func rollUp(rows []SiteRow, key func(*SiteRow) string, reset func(*SiteRow)) []SiteRow {
	index := map[string]int{}
	classes := map[string]map[string]bool{}
	var out []SiteRow
	for _, s := range rows {
		k := key(&s)
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			classes[k] = map[string]bool{}
			reset(&s)
			s.printed = false
			out = append(out, s)
		} else {
			o := &out[i]
			o.LiveBytes += s.LiveBytes
			o.LiveInstances += s.LiveInstances
			o.AllocBytes += s.AllocBytes
			o.AllocInstances += s.AllocInstances
		}
		classes[k][s.Class] = true
		if n := len(classes[k]); n > 1 {
			out[i].Class = fmt.Sprintf("<%d classes>", n)
		}
	}
	return out
}

// allocatingFrame returns the index in frames (innermost first) of the
// frame that executed new for an object of class: the frame below the
// constructors that ran for it. Those are the leading <init> frames up to
// the deepest one of class itself (its superclasses' constructors run
// inside its own, and a constructor may call another of its class),
// java.lang.Object's included; a constructor of another class allocates.
// It returns -1 when the trace ends inside those constructors.
func allocatingFrame(class string, frames []thread.Frame) int {
	k := 0
	for i, f := range frames {
		if f.Method != "<init>" {
			break
		}
		if f.Class == class || f.Class == "java.lang.Object" && k == i {
			k = i + 1
		}
	}
	if k >= len(frames) {
		return -1
	}
	return k
}
