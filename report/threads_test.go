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

func TestThreadsRetainedGolden(t *testing.T) {
	holder, main := int64(8_389_088), int64(568)
	threads := []analysis.ThreadRow{
		{Name: "main", Serial: 1, State: "RUNNABLE", RetainedBytes: &main, Frames: []analysis.StackFrame{
			{Method: "app.Main.main", File: "Main.java", Line: 7, Locals: []analysis.FrameLocal{}}}},
		{Name: "holder", Serial: 7, State: "WAITING", RetainedBytes: &holder, Frames: []analysis.StackFrame{
			{Method: "jdk.internal.misc.Unsafe.park", Line: model.LineNative, Locals: []analysis.FrameLocal{}},
			{Method: "app.Holder.hold", File: "Holder.java", Line: 12, Locals: []analysis.FrameLocal{
				{ObjectID: "0x7ff000010", Class: "long[]", RetainedBytes: 8_388_624},
				{ObjectID: "0x7ff800020", Class: "app.Holder", RetainedBytes: 16}}}}},
	}
	out := renderGolden(t, "threads-retained", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Threads(w, threads, o) })
	wantLines(t, "table", out["table"], `"holder" serial 7 WAITING, retains 8.0 MiB:`, "\tat app.Holder.hold(Holder.java:12)", "\t    local 0x7ff000010 long[], retains 8.0 MiB")
	recs := readCSV(t, out["csv"])
	if len(recs) != 3 || strings.Join(recs[0], ",") != "serial,name,state,retained bytes,depth,frames" || recs[2][3] != "8389088" {
		t.Errorf("CSV %q", recs)
	}
	var back []struct {
		RetainedBytes *int64 `json:"retained_bytes"`
		Frames        []struct {
			Locals *[]analysis.FrameLocal `json:"locals"`
		} `json:"frames"`
	}
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || back[1].RetainedBytes == nil || *back[1].RetainedBytes != holder || back[0].Frames[0].Locals == nil ||
		len(*back[0].Frames[0].Locals) != 0 || (*back[1].Frames[1].Locals)[0].RetainedBytes != 8_388_624 {
		t.Errorf("JSON %s", out["json"])
	}
}
