package report

import (
	"io"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

// cpuSamples is a CPU SAMPLES profile of 3 traces, 2 shown (--top 2); the
// second trace recurses through app.Work.loop.
var cpuSamples = profile.CPUReport{
	Kind: "samples", Total: 5_000_000_000, Traces: 3,
	Rows: []profile.CPUTrace{
		{Rank: 1, SelfPercent: 62.5, CumPercent: 62.5, Count: 3_125_000_000, Trace: 300101, Frames: []threads.StackFrame{
			{Method: "app.Work.loop", File: "Work.java", Line: 42},
			{Method: "app.Work.loop", File: "Work.java", Line: 40},
			{Method: "app.Main.main", File: "Main.java", Line: thread.LineUnknown}}},
		{Rank: 2, SelfPercent: 25, CumPercent: 87.5, Count: 1_250_000_000, Trace: 300102, Frames: []threads.StackFrame{
			{Method: "java.io.FileOutputStream.writeBytes", File: "FileOutputStream.java", Line: thread.LineNative},
			{Method: "app.Work.loop", File: "Work.java", Line: 42}}},
	},
	Methods: []profile.CPUMethod{
		{Rank: 1, Method: "app.Work.loop", SelfPercent: 62.5, TotalPercent: 87.5, SelfCount: 3_125_000_000, TotalCount: 4_375_000_000},
		{Rank: 2, Method: "java.io.FileOutputStream.writeBytes", SelfPercent: 25, TotalPercent: 25, SelfCount: 1_250_000_000, TotalCount: 1_250_000_000},
		{Rank: 3, Method: "app.Main.main", SelfPercent: 0, TotalPercent: 62.5, SelfCount: 0, TotalCount: 3_125_000_000},
	},
}

// cpuTimes is a CPU TIME profile: counts are calls, Total milliseconds.
var cpuTimes = profile.CPUReport{
	Kind: "times", Total: 1234, Traces: 2,
	Rows: []profile.CPUTrace{
		{Rank: 1, SelfPercent: 75.04, CumPercent: 75.04, Count: 10, Trace: 7, Frames: []threads.StackFrame{{Method: "app.Überweisung.buchen", File: "Überweisung.java", Line: 9}}},
		{Rank: 2, SelfPercent: 24.96, CumPercent: 100, Count: 3, Trace: 8, Frames: []threads.StackFrame{}},
	},
	Methods: []profile.CPUMethod{{Rank: 1, Method: "app.Überweisung.buchen", SelfPercent: 75.04, TotalPercent: 75.04, SelfCount: 10}},
}

func TestCPUGolden(t *testing.T) {
	out := renderGolden(t, "cpu-samples", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return CPU(w, cpuSamples, o) })
	wantLines(t, "table", out["table"], "CPU SAMPLES: 5000000000 samples in 3 traces", "#1 trace 300101:", "\tat java.io.FileOutputStream.writeBytes(Native Method)")
	wantContains(t, "table", out["table"], "3,125,000,000", "62.50%", "87.50%")
	recs := readCSV(t, out["csv"])
	if len(recs) != 3 || strings.Join(recs[0], ",") != "rank,self_percent,cumulative_percent,count,trace,method,frames" || recs[2][3] != "1250000000" || recs[2][5] != "java.io.FileOutputStream.writeBytes" {
		t.Errorf("CSV %q", recs)
	}

	out = renderGolden(t, "cpu-times", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return CPU(w, cpuTimes, o) })
	wantLines(t, "table", out["table"], "CPU TIME: 1234 ms in 2 traces")
	wantContains(t, "table", out["table"], "<empty trace>", "calls")
	if strings.Contains(out["table"], "#2 trace") {
		t.Errorf("a trace without frames has no stack below the table:\n%s", out["table"])
	}
	if recs := readCSV(t, out["csv"]); recs[0][3] != "count" {
		t.Errorf("CPU TIME CSV header %q, want count (the calls)", recs[0])
	}
}

func TestCPUMethodsGolden(t *testing.T) {
	out := renderGolden(t, "cpu-by-method", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return CPUMethods(w, cpuSamples, o) })
	recs := readCSV(t, out["csv"])
	if len(recs) != 4 || strings.Join(recs[0], ",") != "rank,self_percent,total_percent,self_count,total_count,method" || recs[1][2] != "87.5" || recs[3][3] != "0" {
		t.Errorf("CSV %q", recs)
	}
	var back []profile.CPUMethod
	decodeJSON(t, out["json"], &back)
	if len(back) != 3 || back[0] != cpuSamples.Methods[0] {
		t.Errorf("JSON decodes to %+v", back)
	}

	// CPU TIME counts calls of the innermost method: per method only its
	// own calls mean something.
	out = renderGolden(t, "cpu-times-by-method", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return CPUMethods(w, cpuTimes, o) })
	if recs := readCSV(t, out["csv"]); strings.Join(recs[0], ",") != "rank,self_percent,total_percent,self_count,method" || recs[1][3] != "10" {
		t.Errorf("CPU TIME by method CSV %q", recs)
	}
	if strings.Contains(out["json"], "total_count") {
		t.Errorf("CPU TIME by method JSON has a total count:\n%s", out["json"])
	}
}

func TestCPUEmptyGolden(t *testing.T) {
	r := profile.CPUReport{Kind: "samples"}
	out := renderGolden(t, "cpu-empty", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return CPU(w, r, o) })
	if out["json"] != "[]\n" || out["csv"] != "rank,self_percent,cumulative_percent,count,trace,method,frames\n" {
		t.Errorf("JSON %q and CSV %q, want [] and the header alone", out["json"], out["csv"])
	}
	if out["table"] != "CPU SAMPLES: 0 samples in 0 traces\nno sampled trace\n" {
		t.Errorf("table %q, want the total and the line saying no trace", out["table"])
	}
	out = renderGolden(t, "cpu-by-method-empty", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return CPUMethods(w, r, o) })
	if out["json"] != "[]\n" || out["table"] != "no sampled method\n" {
		t.Errorf("JSON %q and table %q, want [] and the line saying no method", out["json"], out["table"])
	}
	times := profile.CPUReport{Kind: "times"}
	for _, c := range []struct {
		render func(io.Writer, profile.CPUReport, Options) error
		want   string
	}{
		{CPU, "CPU TIME: 0 ms in 0 traces\nno timed trace\n"},
		{CPUMethods, "no timed method\n"},
	} {
		var b strings.Builder
		if err := c.render(&b, times, Options{Format: Table}); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("empty CPU TIME: %q, want %q", b.String(), c.want)
		}
	}
}

// pprofSample is a decoded pprof.proto sample: its values and its
// frames, innermost first, as function name, file and line.
type pprofSample struct {
	values string
	frames string
}

func decodePprof(t *testing.T, r profile.CPUReport) (*pprof.Profile, []pprofSample) {
	t.Helper()
	var b strings.Builder
	if err := CPUPprof(&b, r); err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("the profile does not parse: %v", err)
	}
	var out []pprofSample
	for _, s := range p.Sample {
		var ps pprofSample
		for _, v := range s.Value {
			ps.values += " " + itoa(int(v))
		}
		for _, l := range s.Location {
			for _, ln := range l.Line {
				ps.frames += " " + ln.Function.Name + "@" + ln.Function.Filename + ":" + itoa(int(ln.Line))
			}
		}
		out = append(out, ps)
	}
	return p, out
}

func TestCPUPprof(t *testing.T) {
	p, got := decodePprof(t, cpuSamples)
	if len(p.SampleType) != 1 || p.SampleType[0].Type != "samples" || p.SampleType[0].Unit != "count" {
		t.Errorf("sample types %v, want samples/count", p.SampleType)
	}
	want := []pprofSample{
		{" 3125000000", " app.Work.loop@Work.java:42 app.Work.loop@Work.java:40 app.Main.main@Main.java:0"},
		{" 1250000000", " java.io.FileOutputStream.writeBytes@FileOutputStream.java:0 app.Work.loop@Work.java:42"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("samples\n%q\nwant\n%q", got, want)
	}
	if len(p.Function) != 3 {
		t.Errorf("%d functions, want 3 (app.Work.loop once)", len(p.Function))
	}
	if len(p.Location) != 4 {
		t.Errorf("%d locations, want 4 (Work.java:42 shared by both traces)", len(p.Location))
	}

	p, got = decodePprof(t, cpuTimes)
	if len(p.SampleType) != 2 || p.SampleType[0].Type != "calls" || p.SampleType[1].Type != "cpu" || p.SampleType[1].Unit != "milliseconds" || p.DefaultSampleType != "cpu" {
		t.Errorf("CPU TIME sample types %v (default %q), want calls/count and cpu/milliseconds, default cpu", p.SampleType, p.DefaultSampleType)
	}
	// 75.04% of 1234 ms is 926.0 ms, 24.96% is 308.0 ms.
	want = []pprofSample{{" 10 926", " app.Überweisung.buchen@Überweisung.java:9"}, {" 3 308", ""}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("CPU TIME samples\n%q\nwant\n%q", got, want)
	}
}
