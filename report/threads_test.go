package report

import (
	"io"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model/thread"
)

func TestThreadsGolden(t *testing.T) {
	rows := []threads.ThreadRow{
		{Name: "main", Serial: 1, State: "RUNNABLE", Group: "main", Trace: 300001, Frames: []threads.StackFrame{
			{Method: "java.lang.Thread.sleep", Line: thread.LineNative},
			{Method: "app.Main.main", File: "Main.java", Line: 7}}},
		{Name: "worker \"7\", pool=ä", Serial: 4_000_000_000, State: "BLOCKED", Frames: []threads.StackFrame{
			{Method: "app.Pool.take", File: "Pool.java", Line: thread.LineCompiled}}},
		{Name: "Reference Handler", Serial: 2, Frames: []threads.StackFrame{}},
	}
	out := renderGolden(t, "threads", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Threads(w, rows, o) })
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
	var back []threads.ThreadRow
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
	rows := []threads.ThreadRow{
		{Name: "main", Serial: 1, State: "RUNNABLE", RetainedBytes: &main, Frames: []threads.StackFrame{
			{Method: "app.Main.main", File: "Main.java", Line: 7, Locals: []threads.FrameLocal{}}}},
		{Name: "holder", Serial: 7, State: "WAITING", RetainedBytes: &holder, Frames: []threads.StackFrame{
			{Method: "jdk.internal.misc.Unsafe.park", Line: thread.LineNative, Locals: []threads.FrameLocal{}},
			{Method: "app.Holder.hold", File: "Holder.java", Line: 12, Locals: []threads.FrameLocal{
				{ObjectID: "0x7ff000010", Class: "long[]", RetainedBytes: 8_388_624},
				{ObjectID: "0x7ff800020", Class: "app.Holder", RetainedBytes: 16}}}}},
	}
	out := renderGolden(t, "threads-retained", []variant{asTable, asJSON, asCSV}, func(w io.Writer, o Options) error { return Threads(w, rows, o) })
	wantLines(t, "table", out["table"], `"holder" serial 7 WAITING, retains 8.0 MiB:`, "\tat app.Holder.hold(Holder.java:12)", "\t    local 0x7ff000010 long[], retains 8.0 MiB")
	wantCSV := "serial,name,state,retained_bytes,depth,frames,locals\n" +
		"1,main,RUNNABLE,568,1,app.Main.main(Main.java:7),\n" +
		"7,holder,WAITING,8389088,2,jdk.internal.misc.Unsafe.park(Native Method); app.Holder.hold(Holder.java:12)," +
		"1 0x7ff000010 8388624 long[]; 1 0x7ff800020 16 app.Holder\n"
	if out["csv"] != wantCSV {
		t.Errorf("CSV\n%s\nwant\n%s", out["csv"], wantCSV)
	}
	var back []struct {
		RetainedBytes *int64 `json:"retained_bytes"`
		Frames        []struct {
			Locals *[]threads.FrameLocal `json:"locals"`
		} `json:"frames"`
	}
	decodeJSON(t, out["json"], &back)
	if len(back) != 2 || back[1].RetainedBytes == nil || *back[1].RetainedBytes != holder || back[0].Frames[0].Locals == nil ||
		len(*back[0].Frames[0].Locals) != 0 || (*back[1].Frames[1].Locals)[0].RetainedBytes != 8_388_624 {
		t.Errorf("JSON %s", out["json"])
	}
}

// TestThreadsRetainedCSVLocals checks the locals column: locals of the
// innermost and a deeper frame, none for a thread without frames, and a
// class name that CSV must quote.
func TestThreadsRetainedCSVLocals(t *testing.T) {
	worker, idle := int64(1_000_016), int64(0)
	rows := []threads.ThreadRow{
		{Name: "worker", Serial: 3, State: "RUNNABLE", RetainedBytes: &worker, Frames: []threads.StackFrame{
			{Method: "app.Worker.step", File: "Worker.java", Line: 40, Locals: []threads.FrameLocal{
				{ObjectID: "0x700000010", Class: "byte[]", RetainedBytes: 1_000_016}}},
			{Method: "app.Worker.loop", File: "Worker.java", Line: 31, Locals: []threads.FrameLocal{}},
			{Method: "app.Worker.run", Line: thread.LineCompiled, Locals: []threads.FrameLocal{
				{ObjectID: "0x700000800", Class: weirdClass, RetainedBytes: 24},
				{ObjectID: "0x700000900", Class: "java.lang.String", RetainedBytes: 0}}}}},
		{Name: "idle", Serial: 4, RetainedBytes: &idle, Frames: []threads.StackFrame{}},
	}
	var b strings.Builder
	if err := Threads(&b, rows, Options{Format: CSV}); err != nil {
		t.Fatal(err)
	}
	want := "serial,name,state,retained_bytes,depth,frames,locals\n" +
		"3,worker,RUNNABLE,1000016,3,app.Worker.step(Worker.java:40); app.Worker.loop(Worker.java:31); app.Worker.run(Compiled method)," +
		"\"0 0x700000010 1000016 byte[]; 2 0x700000800 24 com.example.Weird,\"\"Name\"\"\nNext; 2 0x700000900 0 java.lang.String\"\n" +
		"4,idle,,0,0,,\n"
	if b.String() != want {
		t.Errorf("CSV\n%s\nwant\n%s", b.String(), want)
	}
}
