package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis"
	"github.com/hprofctl/hprofctl/model"
)

func TestThreadsGolden(t *testing.T) {
	threads := []analysis.ThreadRow{
		{Name: "main", Serial: 1, State: "RUNNABLE", Group: "main", Trace: 300001, Frames: []analysis.StackFrame{
			{Method: "java.lang.Thread.sleep", Line: model.LineNative},
			{Method: "app.Main.main", File: "Main.java", Line: 7}}},
		{Name: "worker \"7\", pool=ä", Serial: 4_000_000_000, State: "BLOCKED", Frames: []analysis.StackFrame{
			{Method: "app.Pool.take", File: "Pool.java", Line: model.LineCompiled}}},
		{Name: "Reference Handler", Serial: 2, Frames: []analysis.StackFrame{}},
	}
	out := renderGolden(t, "threads", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Threads(w, threads, o) })
	wantLines(t, "table", out["table"], `"main" serial 1 RUNNABLE:`, "\tat java.lang.Thread.sleep(Native Method)", `"worker \"7\", pool=ä" serial 4000000000 BLOCKED:`)
	if strings.Contains(out["table"], `"Reference Handler" serial`) {
		t.Errorf("a thread without frames has no stack below the table:\n%s", out["table"])
	}
	recs := readCSV(t, out["csv"])
	if len(recs) != 4 || strings.Join(recs[0], ",") != "serial,name,state,depth,frames" {
		t.Fatalf("CSV %q", recs)
	}
	if recs[1][4] != "java.lang.Thread.sleep(Native Method); app.Main.main(Main.java:7)" || recs[2][1] != `worker "7", pool=ä` || recs[2][0] != "4000000000" || recs[3][3] != "0" {
		t.Errorf("CSV %q", recs)
	}
	var back []analysis.ThreadRow
	decodeJSON(t, out["json"], &back)
	if len(back) != 3 || back[0].Group != "main" || back[1].Serial != 4_000_000_000 || back[2].Frames == nil {
		t.Errorf("JSON decodes to %+v", back)
	}
}

func TestThreadsEmptyGolden(t *testing.T) {
	out := renderGolden(t, "threads-empty", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Threads(w, nil, o) })
	if out["table"] != "no thread in the dump\n" {
		t.Errorf("table %q, want the line saying no thread", out["table"])
	}
	if out["json"] != "[]\n" || out["csv"] != "serial,name,state,depth,frames\n" {
		t.Errorf("JSON %q and CSV %q, want [] and the header alone", out["json"], out["csv"])
	}
}
