package report

import (
	"fmt"
	"io"

	pprof "github.com/google/pprof/profile"
	"github.com/hprofctl/hprofctl/analysis/profile"
)

// CPU renders a CPU profile ranked by trace: JSON an array of traces with
// their frames; tables list the frames of every trace shown below; Pprof
// is the profile.proto of CPUPprof.
func CPU(w io.Writer, r profile.CPUReport, o Options) error {
	return Generate(w, cpuTraces{r}, o)
}

// cpuTraces is a CPU profile ranked by trace, as a Document.
type cpuTraces struct{ profile.CPUReport }

// JSON writes the traces.
func (r cpuTraces) JSON(w io.Writer) error { return writeJSON(w, nonNil(r.Rows)) }

// Pprof writes the profile.proto of the traces.
func (r cpuTraces) Pprof(w io.Writer) error { return CPUPprof(w, r.CPUReport) }

// CSV writes the traces, each with its frames in one column.
func (r cpuTraces) CSV(w io.Writer, o Options) error {
	g := r.grid()
	g.columns = append(g.columns, column{"frames", text, "frames"})
	for k, t := range r.Rows {
		g.rows[k] = append(g.rows[k], joinFrames(t.Frames))
	}
	return o.writeCSV(w, g)
}

// Table writes the total, the traces, and the frames of each below.
func (r cpuTraces) Table(w io.Writer, o Options) error {
	total := fmt.Sprintf("CPU SAMPLES: %d samples in %d traces\n", r.Total, r.Traces)
	if r.Kind == "times" {
		total = fmt.Sprintf("CPU TIME: %d ms in %d traces\n", r.Total, r.Traces)
	}
	if _, err := io.WriteString(w, total); err != nil {
		return err
	}
	if err := o.writeTable(w, r.grid()); err != nil {
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

// grid is the traces, each with its innermost method.
func (r cpuTraces) grid() grid {
	countTitle, none := "samples", "no sampled trace"
	if r.Kind == "times" {
		countTitle, none = "calls", "no timed trace"
	}
	g := grid{columns: []column{{"rank", count, "rank"}, {"self", percent, "self_percent"}, {"accum", percent, "cumulative_percent"}, {countTitle, count, "count"}, {"trace", text, "trace"}, {"method", text, "method"}}, none: none}
	for _, t := range r.Rows {
		top := "<empty trace>"
		if len(t.Frames) > 0 {
			top = t.Frames[0].Method
		}
		g.rows = append(g.rows, []any{t.Rank, t.SelfPercent, t.CumPercent, t.Count, traceLabel(t.Trace), top})
	}
	return g
}

// CPUMethods renders a CPU profile rolled up by method: self and total
// (cumulative) shares and counts; Pprof is the traces' profile.proto all
// the same (CPUPprof).
func CPUMethods(w io.Writer, r profile.CPUReport, o Options) error {
	return Generate(w, cpuMethods{r}, o)
}

// cpuMethods is a CPU profile rolled up by method, as a Document.
type cpuMethods struct{ profile.CPUReport }

// JSON writes the methods.
func (r cpuMethods) JSON(w io.Writer) error { return writeJSON(w, nonNil(r.Methods)) }

// Pprof writes the profile.proto of the traces.
func (r cpuMethods) Pprof(w io.Writer) error { return CPUPprof(w, r.CPUReport) }

// CSV writes the methods.
func (r cpuMethods) CSV(w io.Writer, o Options) error { return o.writeCSV(w, r.grid()) }

// Table writes the methods.
func (r cpuMethods) Table(w io.Writer, o Options) error { return o.writeTable(w, r.grid()) }

// grid is the methods: for CPU TIME without a total count, which calls
// of the innermost method do not give.
func (r cpuMethods) grid() grid {
	g := grid{columns: []column{{"rank", count, "rank"}, {"self", percent, "self_percent"}, {"total", percent, "total_percent"}, {"self count", count, "self_count"}, {"total count", count, "total_count"}, {"method", text, "method"}},
		none: "no sampled method"}
	if r.Kind == "times" {
		g = grid{columns: []column{{"rank", count, "rank"}, {"self", percent, "self_percent"}, {"total", percent, "total_percent"}, {"calls", count, "self_count"}, {"method", text, "method"}}, none: "no timed method"}
	}
	for _, m := range r.Methods {
		if r.Kind == "times" {
			g.rows = append(g.rows, []any{m.Rank, m.SelfPercent, m.TotalPercent, m.SelfCount, m.Method})
			continue
		}
		g.rows = append(g.rows, []any{m.Rank, m.SelfPercent, m.TotalPercent, m.SelfCount, m.TotalCount, m.Method})
	}
	return g
}

// CPUPprof writes the CPU profile as a gzipped profile.proto, which go
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
			s.Value = append(s.Value, r.Milliseconds(t))
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
