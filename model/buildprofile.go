package model

import (
	"fmt"
	"sort"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// agentProfile is what the hprof agent's profiling records say, kept for
// the Heap's Profile.
type agentProfile struct {
	agent    bool // a CONTROL_SETTINGS record was read
	prof     Profile
	rawSites []hprof.AllocSite
	// allocs counts the heap objects of an agent file by class,
	// allocation trace and array length.
	allocs map[ObjectAlloc]int64
}

// agentRecord decodes one of the hprof agent's profiling records:
// CONTROL_SETTINGS, ALLOC_SITES, HEAP_SUMMARY or CPU_SAMPLES.
func (b *builder) agentRecord(rec *hprof.Record) {
	switch rec.Tag {
	case hprof.TagControlSettings:
		b.agent = true
		cs := rec.ControlSettings
		b.prof.Control = &ControlSettings{AllocTraces: cs.AllocTraces(), CPUSampling: cs.CPUSampling(), MaxDepth: int(cs.MaxDepth)}
	case hprof.TagAllocSites:
		a := rec.AllocSites
		order := "live bytes"
		if a.SortedByAllocation() {
			order = "allocated bytes"
		}
		b.prof.Sites = &SiteTable{OrderedBy: order, LiveBytes: int64(a.LiveBytes), LiveInstances: int64(a.LiveInstances),
			AllocBytes: int64(a.AllocatedBytes), AllocInstances: int64(a.AllocatedInstances)}
		b.rawSites = append(b.rawSites[:0], a.Sites...)
	case hprof.TagHeapSummary:
		hs := rec.HeapSummary
		b.prof.Summary = &HeapSummary{LiveBytes: int64(hs.LiveBytes), LiveInstances: int64(hs.LiveInstances),
			AllocBytes: int64(hs.AllocatedBytes), AllocInstances: int64(hs.AllocatedInstances)}
	case hprof.TagCPUSamples:
		c := rec.CPUSamples
		t := &CPUTable{Total: int64(c.Total), Rows: make([]CPURow, len(c.Samples))}
		for i, s := range c.Samples {
			t.Rows[i] = CPURow{Trace: s.TraceSerial, Count: int64(s.Count)}
			if c.Total > 0 {
				t.Rows[i].Self = 100 * float64(s.Count) / float64(c.Total)
			}
		}
		b.prof.CPU = t
	}
}

// agentFile reports whether the hprof agent wrote the file: a binary file
// with its CONTROL_SETTINGS record, or its ASCII output.
func (b *builder) agentFile() bool { return b.agent || b.traits.Producer == "hprof-agent" }

// countAlloc counts a heap object of an agent file under its class and
// allocation trace.
func (b *builder) countAlloc(c ClassIndex, trace, length uint32) {
	if b.agentFile() && trace != 0 {
		b.allocs[ObjectAlloc{Class: c, Trace: trace, Length: length}]++
	}
}

// buildProfile fills the Heap's Profile from the agent's records: sites
// and threads named, the same traces as the Heap's, and the heap objects
// counted by allocation trace.
func (b *builder) buildProfile() {
	h := b.h
	p := &b.prof
	p.Source = h.Source
	p.Traces = h.Traces
	p.Anomalies = h.Anomalies
	p.Truncated = h.Truncated
	if p.Sites != nil {
		p.Sites.Sites = make([]AllocSite, len(b.rawSites))
		for i, s := range b.rawSites {
			name := JavaClassName(b.name(b.classNameID[b.classSerial[s.ClassSerial]]))
			if _, ok := b.classSerial[s.ClassSerial]; !ok {
				name = fmt.Sprintf("<unknown class serial %d>", s.ClassSerial)
				if t := Type(s.ArrayType); t != 0 && t != TypeObject {
					name = PrimitiveArrayName(t)
				}
			}
			p.Sites.Sites[i] = AllocSite{Class: name, Trace: s.TraceSerial,
				LiveBytes: int64(s.LiveBytes), LiveInstances: int64(s.LiveInstances),
				AllocBytes: int64(s.AllocBytes), AllocInstances: int64(s.AllocInstances)}
		}
	}
	for serial, id := range b.threadIDs {
		t := ProfileThread{Serial: serial, ObjectID: id, Name: b.name(b.threadNames[serial]), Trace: b.threadTrace[serial], Ended: b.ended[serial]}
		if g := b.threadGroups[serial]; g != 0 {
			t.Group = b.name(g)
		}
		p.Threads = append(p.Threads, t)
	}
	sort.Slice(p.Threads, func(i, j int) bool { return p.Threads[i].Serial < p.Threads[j].Serial })
	for serial := range b.unloaded {
		if id, ok := b.classSerial[serial]; ok {
			p.UnloadedClasses = append(p.UnloadedClasses, JavaClassName(b.name(b.classNameID[id])))
		}
	}
	sort.Strings(p.UnloadedClasses)
	if p.Source.Producer == "hprof-agent" {
		h.allocs = make([]ObjectAlloc, 0, len(b.allocs))
		for k, n := range b.allocs {
			k.Count = n
			h.allocs = append(h.allocs, k)
		}
		sort.Slice(h.allocs, func(i, j int) bool {
			a, c := h.allocs[i], h.allocs[j]
			if a.Class != c.Class {
				return a.Class < c.Class
			}
			if a.Trace != c.Trace {
				return a.Trace < c.Trace
			}
			return a.Length < c.Length
		})
	}
	b.allocs, b.rawSites = nil, nil
	h.profile = p
}
