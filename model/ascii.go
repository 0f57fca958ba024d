package model

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/hprofctl/hprofctl/parser/hprofascii"
	"github.com/hprofctl/hprofctl/parser/input"
)

// LoadProfile reads the profiling data of an hprof agent file, ASCII or
// binary. For a binary file it loads the heap with opt and returns it
// too; for an ASCII file the heap is nil (Load reads its HEAP DUMP
// sections into the heap model).
func LoadProfile(f *input.File, opt LoadOptions) (*Profile, *Heap, error) {
	format, err := f.Sniff(opt.JVMPI != nil)
	if err != nil {
		return nil, nil, err
	}
	if format.Kind == input.KindHPROFASCII {
		p, err := LoadASCII(f, f.Name, opt.Dump)
		if err != nil {
			return nil, nil, err
		}
		p.Source.Compression = string(f.Compression)
		return p, nil, nil
	}
	h, err := Load(f, opt)
	if err != nil {
		return nil, nil, err
	}
	h.profile.Source.Compression = h.Source.Compression
	return h.profile, h, nil
}

// LoadASCII reads the hprof agent's ASCII output from src into a Profile:
// threads, traces, and the last SITES, CPU SAMPLES or CPU TIME and
// MONITOR TIME sections, and MONITOR DUMP number dump (from 0; -1: the
// last). A file cut short keeps what was read before the cut, with
// Truncated set.
func LoadASCII(src io.Reader, name string, dump int) (*Profile, error) {
	r, err := hprofascii.NewReader(src, hprofascii.Options{Name: name})
	if err != nil {
		return nil, err
	}
	hdr := r.Header()
	p := &Profile{Source: Source{File: name, Format: "hprof-ascii", Version: hdr.Version, Time: hdr.Created, Producer: "hprof-agent", Dump: -1}}
	ended := map[uint32]bool{}
	var monitorDump *MonitorDump // the MONITOR DUMP being read, when it is the chosen one
	var listedTwice int64
	for r.Next() {
		rec := r.Record()
		switch rec.Kind {
		case hprofascii.KindThreadStart:
			t := rec.ThreadStart
			p.Threads = append(p.Threads, ProfileThread{Serial: t.Serial, ObjectID: t.ObjectID, Name: string(t.Name), Group: string(t.Group)})
		case hprofascii.KindThreadEnd:
			ended[rec.ThreadEnd] = true
		case hprofascii.KindTrace:
			p.Traces = append(p.Traces, asciiTrace(&rec.Trace))
		case hprofascii.KindSitesBegin:
			p.Sites = &SiteTable{OrderedBy: string(rec.Sites.OrderedBy), Printed: true}
		case hprofascii.KindSite:
			s := rec.Site
			site := AllocSite{Class: hprofascii.JavaName(s.Class), Trace: s.Trace,
				LiveBytes: int64(s.LiveBytes), LiveInstances: int64(s.LiveObjects),
				AllocBytes: int64(s.AllocBytes), AllocInstances: int64(s.AllocObjects), Self: s.Self, Accum: s.Accum}
			t := p.Sites
			t.Sites = append(t.Sites, site)
			t.LiveBytes += site.LiveBytes
			t.LiveInstances += site.LiveInstances
			t.AllocBytes += site.AllocBytes
			t.AllocInstances += site.AllocInstances
		case hprofascii.KindCPUBegin:
			p.CPU = &CPUTable{Times: rec.CPU.Times, Total: int64(rec.CPU.Total)}
		case hprofascii.KindCPURow:
			c := rec.CPURow
			p.CPU.Rows = append(p.CPU.Rows, CPURow{Trace: c.Trace, Count: int64(c.Count), Self: c.Self})
		case hprofascii.KindMonitorTimeBegin:
			total := int64(rec.MonitorTime.TotalMS)
			p.MonitorTime = &MonitorTimeTable{TotalMS: total, TotalMSMax: total}
			if hdr.Generation == hprofascii.GenerationJVMTI {
				p.MonitorTime.TotalMS, p.MonitorTime.TotalMSMax = total*1_000_000, total*1_000_000+999_999
			}
		case hprofascii.KindMonitorTimeRow:
			m := rec.MonitorRow
			p.MonitorTime.Rows = append(p.MonitorTime.Rows, MonitorContention{Monitor: monitorName(m.Monitor), Trace: m.Trace, Count: int64(m.Count), Self: m.Self})
		case hprofascii.KindMonitorDumpBegin:
			monitorDump = nil
			if dump < 0 || dump == p.MonitorDumps {
				monitorDump = &MonitorDump{}
				p.MonitorDump, p.MonitorDumpIndex = monitorDump, p.MonitorDumps
			}
			p.MonitorDumps++
		case hprofascii.KindMonitorDumpThread:
			if t := rec.MonitorThread; monitorDump != nil {
				monitorDump.Threads = append(monitorDump.Threads, MonitorThread{Serial: t.Thread, Trace: t.Trace,
					State: hprofascii.ThreadState(t.State), Suspended: t.Suspended, Interrupted: t.Interrupted, InNative: t.InNative})
			}
		case hprofascii.KindMonitorDumpMonitor:
			if m := rec.Monitor; monitorDump != nil {
				st := MonitorState{Monitor: monitorName(m.Monitor), Owned: m.Owned, Owner: m.Owner, EntryCount: m.EntryCount,
					WaitingToBeNotified: append([]uint32(nil), m.WaitingToBeNotified...)}
				// A thread in Object.wait() is listed as waiting to enter
				// too by JDK 9+ JVMTI; it waits to be notified only.
				for _, s := range m.WaitingToEnter {
					if slices.Contains(m.WaitingToBeNotified, s) {
						listedTwice++
						continue
					}
					st.WaitingToEnter = append(st.WaitingToEnter, s)
				}
				monitorDump.Monitors = append(monitorDump.Monitors, st)
			}
		}
	}
	if err := r.Err(); err != nil {
		if !errors.Is(err, hprofascii.ErrTruncated) {
			return nil, err
		}
		p.Truncated = true
		a := Anomaly{Kind: "truncated", Count: 1, Offset: -1, Detail: err.Error()}
		var fe *hprofascii.FormatError
		if errors.As(err, &fe) {
			a.Line = fe.Line
			a.Detail = fmt.Sprintf("the file is truncated at line %d: %s; %d lines (%d bytes) were read before the cut", fe.Line, fe.Msg, r.Line(), r.Bytes())
		}
		p.Anomalies = append(p.Anomalies, a)
	}
	if dump >= 0 && p.MonitorDumps > 0 && dump >= p.MonitorDumps {
		return nil, fmt.Errorf("%s: MONITOR DUMP %d requested, the file has %d", name, dump, p.MonitorDumps)
	}
	if listedTwice > 0 {
		p.Anomalies = append(p.Anomalies, Anomaly{Kind: "waiter-listed-twice", Count: listedTwice, Offset: -1,
			Detail: "threads a MONITOR DUMP lists both as waiting to enter a monitor and as waiting to be notified by it (JDK 9+ JVMTI lists a thread in Object.wait() twice): counted as waiting to be notified"})
	}
	for _, w := range r.Warnings() {
		p.Anomalies = append(p.Anomalies, Anomaly{Kind: "reader-warning", Count: 1, Offset: -1, Line: w.Line, Detail: w.Msg})
	}
	for i := range p.Threads {
		p.Threads[i].Ended = ended[p.Threads[i].Serial]
	}
	p.Source.Lines, p.Source.Bytes = r.Line(), r.Bytes()
	return p, nil
}

func asciiTrace(t *hprofascii.Trace) Trace {
	return Trace{Serial: t.Serial, ThreadSerial: t.Thread, Frames: t.ThreadFrames()}
}

func monitorName(m hprofascii.MonitorRef) MonitorName {
	n := MonitorName{Raw: m.Raw, Name: string(m.Name), ID: m.ID}
	if len(m.Class) > 0 {
		n.Class = hprofascii.JavaName(m.Class)
	}
	return n
}
