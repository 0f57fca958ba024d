package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

// agentFrames is a stack as the agent records it: a source line, an
// unknown line with no file, a compiled and a native frame.
var agentFrames = []threads.StackFrame{
	{Method: "java.util.Arrays.copyOf", File: "Arrays.java", Line: 3537},
	{Method: "java.lang.AbstractStringBuilder.ensureCapacityInternal", Line: thread.LineUnknown},
	{Method: "app.Cache.put", File: "Cache.java", Line: thread.LineCompiled},
	{Method: "java.lang.Thread.run0", File: "Thread.java", Line: thread.LineNative},
}

const recordsNote = "allocation sites as the hprof agent recorded them (ordered by live bytes)"

func TestSitesRecordsGolden(t *testing.T) {
	shares := "shares of all live bytes as the agent printed them (self, accum)"
	r := profile.SitesReport{
		Source: profile.SitesFromRecords, Note: recordsNote, Shares: shares, Sites: 5, WholeLive: 8 << 30,
		Rows: []profile.SiteRow{
			{Rank: 1, Class: "byte[]", LiveBytes: sixGiB, LiveInstances: 1_250_000, AllocBytes: sixGiB + 1<<30, AllocInstances: 1_500_000,
				Percent: 75, CumPercent: 75, PercentOf: shares, Trace: 300001, Method: "java.util.Arrays.copyOf", Frames: agentFrames, Source: profile.SitesFromRecords},
			{Rank: 2, Class: weirdClass, LiveBytes: 1 << 30, LiveInstances: 3, AllocBytes: 1 << 30, AllocInstances: 3,
				Percent: 12.5, CumPercent: 87.5, PercentOf: shares, Trace: 300002, Frames: agentFrames[2:3], Source: profile.SitesFromRecords},
		},
		Total: profile.SiteRow{Class: "total", LiveBytes: 8 << 30, LiveInstances: 1_250_010, AllocBytes: 9 << 30, AllocInstances: 1_500_010, Source: profile.SitesFromRecords},
	}
	out := renderGolden(t, "sites-records", allVariants, func(w io.Writer, o Options) error { return Sites(w, r, o) })
	wantLines(t, "table", out["table"], "Source: sites-record — "+recordsNote, "Percent: "+shares,
		"#1 byte[], trace 300001:",
		"\tat java.util.Arrays.copyOf(Arrays.java:3537)",
		"\tat java.lang.AbstractStringBuilder.ensureCapacityInternal(Unknown Source)",
		"\tat app.Cache.put(Compiled method)",
		"\tat java.lang.Thread.run0(Native Method)")
	wantContains(t, "table", out["table"], "75.00%", "87.50%", "6.0 GiB", "total of all 5 sites", "1,250,010")
	recs := readCSV(t, out["csv"])
	if len(recs) != 3 {
		t.Fatalf("CSV has %d records, want the header and one per site:\n%s", len(recs), out["csv"])
	}
	if got := strings.Join(recs[0], ","); got != "rank,percent,cumulative_percent,live_bytes,live_instances,alloc_bytes,alloc_instances,trace,class,method,frames" {
		t.Errorf("CSV header %q", got)
	}
	wantFrames := "java.util.Arrays.copyOf(Arrays.java:3537); java.lang.AbstractStringBuilder.ensureCapacityInternal(Unknown Source); app.Cache.put(Compiled method); java.lang.Thread.run0(Native Method)"
	if recs[1][1] != "75" || recs[1][3] != "6442451067" || recs[1][9] != "java.util.Arrays.copyOf" || recs[1][10] != wantFrames || recs[2][8] != weirdClass {
		t.Errorf("CSV %q", recs)
	}
	var back []profile.SiteRow
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || back[0].LiveBytes != sixGiB || back[0].Frames[2].Line != thread.LineCompiled || back[1].PercentOf != shares {
		t.Errorf("JSON decodes to %+v", back)
	}
}

// TestSitesRollUpsGolden renders the agent's sites rolled up by class,
// trace and method, as profile.SitesFromProfile leaves them: no trace
// by class or method, "<N classes>" where a row merges classes, by method
// the allocating method (none when the trace does not reach it) and no
// frames.
func TestSitesRollUpsGolden(t *testing.T) {
	shares := "shares of all live bytes, about 1000: the file prints no total, so it is derived from the listed sites' 900 live bytes and the last accum the file prints (90.00%)"
	row := func(rank int, class string, live, objs int64, pct, cum float64, trace uint32, frames []threads.StackFrame) profile.SiteRow {
		return profile.SiteRow{Rank: rank, Class: class, LiveBytes: live, LiveInstances: objs, AllocBytes: 2 * live, AllocInstances: 2 * objs,
			Percent: pct, CumPercent: cum, PercentOf: shares, Trace: trace, Frames: frames, Source: profile.SitesFromRecords}
	}
	total := profile.SiteRow{Class: "total", LiveBytes: 900, LiveInstances: 30, AllocBytes: 1800, AllocInstances: 60, Source: profile.SitesFromRecords}
	for _, c := range []struct {
		by   string
		rows []profile.SiteRow
	}{
		{"class", []profile.SiteRow{
			row(1, "char[]", 600, 20, 60, 60, 0, []threads.StackFrame{}),
			row(2, "java.lang.String", 300, 10, 30, 90, 0, []threads.StackFrame{})}},
		{"trace", []profile.SiteRow{
			row(1, "<2 classes>", 800, 25, 80, 80, 300001, agentFrames[:2]),
			row(2, "char[]", 100, 5, 10, 90, 300002, agentFrames[2:])}},
		{"method", []profile.SiteRow{
			row(1, "<2 classes>", 800, 25, 80, 80, 0, []threads.StackFrame{}),
			row(2, "char[]", 100, 5, 10, 90, 0, []threads.StackFrame{})}},
	} {
		if c.by == "method" {
			c.rows[0].Method = "app.Cache.put"
		}
		r := profile.SitesReport{Source: profile.SitesFromRecords, By: c.by, Note: recordsNote, Shares: shares, Sites: 2, WholeLive: 1000, Rows: c.rows, Total: total}
		out := renderGolden(t, "sites-by-"+c.by, []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Sites(w, r, o) })
		wantLines(t, "--by "+c.by+" table", out["table"], "Percent: "+shares)
		if recs := readCSV(t, out["csv"]); len(recs) != 3 || recs[2][2] != "90" {
			t.Errorf("--by %s CSV %q", c.by, recs)
		}
		if (c.by == "class" || c.by == "method") && strings.Contains(out["table"], "\tat ") {
			t.Errorf("--by %s rows have no frames, yet the table lists some:\n%s", c.by, out["table"])
		}
		if c.by == "method" {
			wantContains(t, "--by method table", out["table"], " method ", "app.Cache.put", "(not in the recorded trace)")
			if recs := readCSV(t, out["csv"]); recs[0][9] != "method" || recs[1][9] != "app.Cache.put" {
				t.Errorf("--by method CSV %q", recs)
			}
			if !strings.Contains(out["json"], `"method": "app.Cache.put"`) {
				t.Errorf("--by method JSON lacks the method:\n%s", out["json"])
			}
		}
	}
}

func TestSitesHeapGolden(t *testing.T) {
	note := "live objects of the heap dump by class and allocation trace (a heap dump records no freed objects, so allocated = live)"
	r := profile.SitesReport{
		Source: profile.SitesFromHeapTraces, Note: note, Sites: 2,
		Rows: []profile.SiteRow{
			{Rank: 1, Class: "int[]", LiveBytes: 4000, LiveInstances: 10, AllocBytes: 4000, AllocInstances: 10, Percent: 80, CumPercent: 80,
				Trace: 7, Frames: agentFrames[:1], Source: profile.SitesFromHeapTraces},
			{Rank: 2, Class: "中文.类", LiveBytes: 1000, LiveInstances: 1, AllocBytes: 1000, AllocInstances: 1, Percent: 20, CumPercent: 100,
				Trace: 8, Frames: []threads.StackFrame{}, Source: profile.SitesFromHeapTraces},
		},
		Total: profile.SiteRow{Class: "total", LiveBytes: 5000, LiveInstances: 11, AllocBytes: 5000, AllocInstances: 11, Source: profile.SitesFromHeapTraces},
	}
	out := renderGolden(t, "sites-heap", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Sites(w, r, o) })
	wantLines(t, "table", out["table"], "Source: heap-traces — "+note, "#1 int[], trace 7:")
	if strings.Contains(out["table"], "Percent:") || strings.Contains(out["table"], "#2 ") {
		t.Errorf("no Percent line (no agent total) and no stack for a trace without frames expected:\n%s", out["table"])
	}
}

func TestSitesStackRootsGolden(t *testing.T) {
	note := "this dump records no allocation sites (its objects carry no allocation traces, as in every HotSpot dump); " +
		"shown instead: the objects Java stack frames hold, by class and frame, with the bytes each retains (live = retained; instances = objects the frames root)"
	frames := []threads.StackFrame{{Method: "fixture.StackHolder.run", File: "StackHolder.java", Line: 12}, {Method: "java.lang.Thread.run", File: "Thread.java", Line: 833}}
	r := profile.SitesReport{
		Source: profile.SitesFromStackRoots, Note: note, Sites: 1,
		Rows: []profile.SiteRow{{Rank: 1, Class: "fixture.StackOnly", LiveBytes: 5 << 30, LiveInstances: 1, AllocBytes: 5 << 30, AllocInstances: 1,
			Percent: 100, CumPercent: 100, Trace: 3, Thread: "fixture-holder \"q\"", Frames: frames, Source: profile.SitesFromStackRoots}},
		Total: profile.SiteRow{Class: "total", LiveBytes: 5 << 30, LiveInstances: 1, AllocBytes: 5 << 30, AllocInstances: 1, Source: profile.SitesFromStackRoots},
	}
	out := renderGolden(t, "sites-stack-roots", allVariants, func(w io.Writer, o Options) error { return Sites(w, r, o) })
	wantLines(t, "table", out["table"], `#1 fixture.StackOnly, trace 3, thread "fixture-holder \"q\"":`, "\tat fixture.StackHolder.run(StackHolder.java:12)")
	wantContains(t, "table --bytes", out["bytes"], "5368709120")
	var back []profile.SiteRow
	decodeJSON(t, out["json"], &back)
	if len(back) != 1 || back[0].Thread != "fixture-holder \"q\"" || back[0].Source != profile.SitesFromStackRoots {
		t.Errorf("JSON decodes to %+v", back)
	}
}

func TestSitesEmptyGolden(t *testing.T) {
	r := profile.SitesReport{Source: profile.SitesFromRecords, Note: recordsNote,
		Total: profile.SiteRow{Class: "total", Source: profile.SitesFromRecords}}
	out := renderGolden(t, "sites-empty", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Sites(w, r, o) })
	if out["json"] != "[]\n" {
		t.Errorf("JSON %q, want []", out["json"])
	}
	wantLines(t, "table", out["table"], "the file lists no allocation site")
	for source, want := range map[string]string{
		profile.SitesFromHeapTraces: "no live object carries an allocation trace",
		profile.SitesFromStackRoots: "no Java stack frame holds an object",
	} {
		var b strings.Builder
		if err := Sites(&b, profile.SitesReport{Source: source, Note: "a note"}, Options{Format: Table}); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != "Source: "+source+" — a note\n"+want+"\n" {
			t.Errorf("no %s site: %q, want the source and %q", source, got, want)
		}
	}
	if out["csv"] != "rank,percent,cumulative_percent,live_bytes,live_instances,alloc_bytes,alloc_instances,trace,class,method,frames\n" {
		t.Errorf("CSV %q, want the header alone", out["csv"])
	}
}
