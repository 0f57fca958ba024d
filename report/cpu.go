package report

import (
	"fmt"
	"io"

	pprof "github.com/google/pprof/profile"
	"github.com/hprofctl/hprofctl/analysis/profile"
)

// CPU renders a CPU profile ranked by trace: JSON an array of traces with
// their frames; tables list the frames of every trace shown below.
func CPU(w io.Writer, r profile.CPUReport, o Options) error {
	if o.Format == JSON {
		rows := r.Rows
		if rows == nil {
			rows = []profile.CPUTrace{}
		}
		return writeJSON(w, rows)
	}
	countTitle, none := "samples", "no sampled trace"
	if r.Kind == "times" {
		countTitle, none = "calls", "no timed trace"
	}
	g := grid{columns: []column{{"rank", count}, {"self", percent}, {"accum", percent}, {countTitle, count}, {"trace", text}, {"method", text}}, none: none}
	if o.Format == CSV {
		g.columns = append(g.columns, column{"frames", text})
	}
	for _, t := range r.Rows {
		top := "<empty trace>"
		if len(t.Frames) > 0 {
			top = t.Frames[0].Method
		}
		row := []any{t.Rank, t.SelfPercent, t.CumPercent, t.Count, traceLabel(t.Trace), top}
		if o.Format == CSV {
			row = append(row, joinFrames(t.Frames))
		}
		g.rows = append(g.rows, row)
	}
	if o.Format == CSV {
		return o.render(w, g)
	}
	total := fmt.Sprintf("CPU SAMPLES: %d samples in %d traces\n", r.Total, r.Traces)
	if r.Kind == "times" {
		total = fmt.Sprintf("CPU TIME: %d ms in %d traces\n", r.Total, r.Traces)
	}
	if _, err := io.WriteString(w, total); err != nil {
		return err
	}
	if err := o.render(w, g); err != nil {
		return err
	}
	for _, t := range r.Rows {
		if len(t.Frames) > 0 {
			if err := writeFrames(w, fmt.Sprintf("\n#%d trace %d:", t.Rank, t.Trace), t.Frames); err != nil {
				return err
			}
		}
	}
	return nil
}

// CPUMethods renders a CPU profile rolled up by method: self and total
// (cumulative) shares and counts.
func CPUMethods(w io.Writer, r profile.CPUReport, o Options) error {
	if o.Format == JSON {
		rows := r.Methods
		if rows == nil {
			rows = []profile.CPUMethod{}
		}
		return writeJSON(w, rows)
	}
	g := grid{columns: []column{{"rank", count}, {"self", percent}, {"total", percent}, {"self count", count}, {"total count", count}, {"method", text}},
		none: "no sampled method"}
	if r.Kind == "times" {
		g = grid{columns: []column{{"rank", count}, {"self", percent}, {"total", percent}, {"calls", count}, {"method", text}}, none: "no timed method"}
	}
	for _, m := range r.Methods {
		if r.Kind == "times" {
			g.rows = append(g.rows, []any{m.Rank, m.SelfPercent, m.TotalPercent, m.SelfCount, m.Method})
			continue
		}
		g.rows = append(g.rows, []any{m.Rank, m.SelfPercent, m.TotalPercent, m.SelfCount, m.TotalCount, m.Method})
	}
	return o.render(w, g)
}

// CPUPprof writes the CPU profile as a gzipped pprof.proto, which go
// tool pprof and flame graph tools read: one sample per trace, valued by
// its samples (CPU SAMPLES), or by its calls and milliseconds (CPU TIME).
func CPUPprof(w io.Writer, r profile.CPUReport) error {
	p := &pprof.Profile{}
	if r.Kind == "times" {
		p.SampleType = []*pprof.ValueType{{Type: "calls", Unit: "count"}, {Type: "cpu", Unit: "milliseconds"}}
		p.DefaultSampleType = "cpu"
	} else {
		p.SampleType = []*pprof.ValueType{{Type: "samples", Unit: "count"}}
	}
	functions := map[[2]string]*pprof.Function{}
	// A frame's location is its method, file and line.
	type frameKey struct {
		method, file string
		line         int32
	}
	locations := map[frameKey]*pprof.Location{}
	for _, t := range r.Rows {
		s := &pprof.Sample{Value: []int64{t.Count}}
		if r.Kind == "times" {
			s.Value = append(s.Value, int64(t.SelfPercent*float64(r.Total)/100+0.5))
		}
		for _, f := range t.Frames {
			key := frameKey{f.Method, f.File, f.Line}
			loc := locations[key]
			if loc == nil {
				fk := [2]string{f.Method, f.File}
				fn := functions[fk]
				if fn == nil {
					fn = &pprof.Function{ID: uint64(len(p.Function) + 1), Name: f.Method, SystemName: f.Method, Filename: f.File}
					functions[fk] = fn
					p.Function = append(p.Function, fn)
				}
				loc = &pprof.Location{ID: uint64(len(p.Location) + 1), Line: []pprof.Line{{Function: fn, Line: int64(max(f.Line, 0))}}}
				locations[key] = loc
				p.Location = append(p.Location, loc)
			}
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		return err
	}
	return p.Write(w)
}
