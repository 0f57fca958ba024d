package model

import (
	"bytes"
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

func TestProfileFromBinaryAgentRecords(t *testing.T) {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: 4})
	w.ControlSettings(0x2, 7)
	w.LoadClass(hproftest.LoadClass{Serial: 1, ClassID: 0x100, NameID: w.Name("com/example/Worker")})
	frame := w.StackFrame("run", "()V", "Worker.java", 1, 42)
	trace := w.StackTrace(5, frame)
	w.StartThread(hproftest.StartThread{ThreadSerial: 5, ThreadID: 0x200, TraceSerial: trace, NameID: w.Name("worker-1"), GroupNameID: w.Name("main")})
	w.CPUSamples(hproftest.CPUSamples{Total: 10, Samples: []hproftest.CPUSample{{Count: 7, TraceSerial: trace}, {Count: 3, TraceSerial: 99}}})
	w.EndThread(5)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := input.NewFile("mem", io.NopCloser(&buf), -1)
	if err != nil {
		t.Fatal(err)
	}
	p, h, err := LoadProfile(f, LoadOptions{Dump: -1})
	if err != nil {
		t.Fatal(err)
	}
	if h == nil || h.Profile() != p {
		t.Fatal("binary file: no heap, or its profile differs")
	}
	if p.Control == nil || !p.Control.CPUSampling || p.Control.AllocTraces || p.Control.MaxDepth != 7 {
		t.Errorf("control settings %+v", p.Control)
	}
	if p.CPU == nil || p.CPU.Total != 10 || len(p.CPU.Rows) != 2 || p.CPU.Rows[0].Self != 70 {
		t.Fatalf("CPU %+v", p.CPU)
	}
	tr := p.Trace(trace)
	if tr == nil || len(tr.Frames) != 1 || tr.Frames[0].Class != "com.example.Worker" || tr.Frames[0].Line != 42 {
		t.Errorf("trace %d: %+v", trace, tr)
	}
	th := p.Thread(5)
	if th == nil || th.Name != "worker-1" || th.Group != "main" || !th.Ended || th.Trace != trace {
		t.Errorf("thread 5: %+v", th)
	}
}
