package threads

import (
	"fmt"
	"strconv"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// MonitorDumpThreads returns the MONITOR DUMP of an agent file as a
// thread.Dump, nil when the file has none, so the deadlock analysis reads
// it as it reads thread dumps. Each thread line becomes a thread, named
// after its THREAD START and with the stack of its trace; each monitor
// gives its owner a Holds line, every thread waiting to enter it an Enters
// line and every thread waiting to be notified a WaitsOn line. Threads a
// monitor names that have no thread line are added after the others;
// "<unknown thread>" entries are left out. The JVMTI agent names Java
// monitors by class alone: such a monitor is told apart from others of
// its class by Name, "MONITOR DUMP entry N" (from 1).
func MonitorDumpThreads(p *model.Profile) *thread.Dump {
	md := p.MonitorDump
	if md == nil {
		return nil
	}
	d := &thread.Dump{Format: "hprof agent MONITOR DUMP", Truncated: p.Truncated}
	bySerial := map[uint32]int{}
	threadOf := func(serial uint32) *thread.Snapshot {
		if i, ok := bySerial[serial]; ok {
			return &d.Threads[i]
		}
		t := thread.Snapshot{ID: strconv.FormatUint(uint64(serial), 10)}
		if pt := p.Thread(serial); pt != nil {
			t.Name = pt.Name
		}
		bySerial[serial] = len(d.Threads)
		d.Threads = append(d.Threads, t)
		return &d.Threads[len(d.Threads)-1]
	}
	for _, mt := range md.Threads {
		t := threadOf(mt.Serial)
		t.State = mt.State
		if mt.State == thread.StateBlocked {
			t.StateDetail = thread.DetailOnMonitor
		}
		if tr := p.Trace(mt.Trace); tr != nil {
			t.Frames = append([]thread.Frame(nil), tr.Frames...)
		}
	}
	for k, m := range md.Monitors {
		l := thread.Lock{Kind: thread.LockMonitor, Class: m.Monitor.Class, ID: m.Monitor.ID}
		switch {
		case m.Monitor.Raw:
			l = thread.Lock{Kind: thread.LockRawMonitor, ID: m.Monitor.ID, Name: m.Monitor.Name}
		case l.ID == 0:
			l.Name = fmt.Sprintf("MONITOR DUMP entry %d", k+1)
		}
		add := func(serial uint32, a thread.LockAction) {
			if serial != 0 {
				t := threadOf(serial)
				t.Locks = append(t.Locks, thread.LockUse{Lock: l, Action: a, Frame: -1})
			}
		}
		if m.Owned {
			add(m.Owner, thread.Holds)
		}
		for _, s := range m.WaitingToEnter {
			add(s, thread.Enters)
		}
		for _, s := range m.WaitingToBeNotified {
			add(s, thread.WaitsOn)
		}
	}
	return d
}
