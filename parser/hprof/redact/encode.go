package redact

import (
	"encoding/binary"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// enc appends HPROF values to a byte slice.
type enc struct {
	b   []byte
	ids int
}

func (e *enc) u1(v uint8)  { e.b = append(e.b, v) }
func (e *enc) u2(v uint16) { e.b = binary.BigEndian.AppendUint16(e.b, v) }
func (e *enc) u4(v uint32) { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *enc) u8(v uint64) { e.b = binary.BigEndian.AppendUint64(e.b, v) }

func (e *enc) id(v uint64) {
	if e.ids == 8 {
		e.u8(v)
	} else {
		e.u4(uint32(v))
	}
}

// value appends a value of type t, as the dump's bits.
func (e *enc) value(t hprof.Type, v uint64) {
	switch t.Size(e.ids) {
	case 1:
		e.u1(uint8(v))
	case 2:
		e.u2(uint16(v))
	case 4:
		e.u4(uint32(v))
	default:
		e.u8(v)
	}
}

// top appends a top-level record header; the body length is set by
// finish.
func (e *enc) top(rec *hprof.Record) int {
	e.u1(uint8(rec.Tag))
	e.u4(rec.Time)
	e.u4(0)
	return len(e.b)
}

// finish sets the length of the record whose body starts at start.
func (e *enc) finish(start int) {
	binary.BigEndian.PutUint32(e.b[start-4:], uint32(len(e.b)-start))
}

// topBody appends the body of a top-level record other than UTF8 and the
// heap records, from its parsed fields.
func (e *enc) topBody(rec *hprof.Record) {
	switch rec.Tag {
	case hprof.TagLoadClass:
		l := rec.LoadClass
		e.u4(l.Serial)
		e.id(l.ClassID)
		e.u4(l.TraceSerial)
		e.id(l.NameID)
	case hprof.TagUnloadClass:
		e.u4(rec.UnloadClass)
	case hprof.TagEndThread:
		e.u4(rec.EndThread)
	case hprof.TagFrame:
		f := rec.Frame
		e.id(f.ID)
		e.id(f.MethodID)
		e.id(f.SignatureID)
		e.id(f.SourceID)
		e.u4(f.ClassSerial)
		e.u4(uint32(f.Line))
	case hprof.TagTrace:
		t := rec.Trace
		e.u4(t.Serial)
		e.u4(t.ThreadSerial)
		e.u4(uint32(len(t.FrameIDs)))
		for _, id := range t.FrameIDs {
			e.id(id)
		}
	case hprof.TagAllocSites:
		e.allocSites(&rec.AllocSites)
	case hprof.TagHeapSummary:
		h := rec.HeapSummary
		e.u4(h.LiveBytes)
		e.u4(h.LiveInstances)
		e.u8(h.AllocatedBytes)
		e.u8(h.AllocatedInstances)
	case hprof.TagStartThread:
		s := rec.StartThread
		e.u4(s.ThreadSerial)
		e.id(s.ThreadID)
		e.u4(s.TraceSerial)
		e.id(s.NameID)
		e.id(s.GroupNameID)
		e.id(s.ParentGroupNameID)
	case hprof.TagCPUSamples:
		c := rec.CPUSamples
		e.u4(c.Total)
		e.u4(uint32(len(c.Samples)))
		for _, s := range c.Samples {
			e.u4(s.Count)
			e.u4(s.TraceSerial)
		}
	case hprof.TagControlSettings:
		e.u4(rec.ControlSettings.Flags)
		e.u2(rec.ControlSettings.MaxDepth)
	}
}

func (e *enc) allocSites(a *hprof.AllocSites) {
	e.u2(a.Flags)
	e.u4(a.CutoffRatio)
	e.u4(a.LiveBytes)
	e.u4(a.LiveInstances)
	e.u8(a.AllocatedBytes)
	e.u8(a.AllocatedInstances)
	e.u4(uint32(len(a.Sites)))
	for _, s := range a.Sites {
		e.u1(s.ArrayType)
		e.u4(s.ClassSerial)
		e.u4(s.TraceSerial)
		e.u4(s.LiveBytes)
		e.u4(s.LiveInstances)
		e.u4(s.AllocBytes)
		e.u4(s.AllocInstances)
	}
}

// root appends a GC-root sub-record.
func (e *enc) root(r *hprof.Root) {
	e.u1(uint8(r.Kind))
	e.id(r.ID)
	switch r.Kind {
	case hprof.RootJNIGlobal:
		e.id(r.JNIRef)
	case hprof.RootJNILocal, hprof.RootJavaFrame, hprof.RootJNIMonitor:
		e.u4(r.ThreadSerial)
		e.u4(uint32(r.FrameDepth))
	case hprof.RootThreadObj:
		e.u4(r.ThreadSerial)
		e.u4(r.TraceSerial)
	case hprof.RootNativeStack, hprof.RootThreadBlock:
		e.u4(r.ThreadSerial)
	}
}

// classDump appends a CLASS_DUMP with the given static and constant
// values.
func (e *enc) classDump(c *hprof.ClassDump) {
	e.u1(uint8(hprof.SubClassDump))
	e.id(c.ID)
	e.u4(c.TraceSerial)
	for _, id := range [...]uint64{c.SuperID, c.LoaderID, c.SignersID, c.ProtectionDomainID, c.Reserved1, c.Reserved2} {
		e.id(id)
	}
	e.u4(c.InstanceSize)
	e.u2(uint16(len(c.Constants)))
	for _, k := range c.Constants {
		e.u2(k.Index)
		e.u1(uint8(k.Type))
		e.value(k.Type, k.Value)
	}
	e.u2(uint16(len(c.Statics)))
	for _, s := range c.Statics {
		e.id(s.NameID)
		e.u1(uint8(s.Type))
		e.value(s.Type, s.Value)
	}
	e.u2(uint16(len(c.Fields)))
	for _, f := range c.Fields {
		e.id(f.NameID)
		e.u1(uint8(f.Type))
	}
}
