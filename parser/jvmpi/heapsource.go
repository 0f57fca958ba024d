package jvmpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// Class ids the translation of a JVMPI heap dump gives the classes it has
// to invent. JVMPI object ids are 8-aligned VM addresses, so odd ids never
// name an object: an array class is its element class's id with the low
// bit set, and the small odd ids below name the rest.
const (
	unknownInstanceClass = 3 // level 0: instances and class objects
	unknownArrayClass    = 5 // level 0: object arrays
	unknownElementArray  = 1 // object arrays whose element class is 0
)

// arrayClassID is the class id the translation gives the array class
// whose element class is elem; an unknown (0) element class counts as
// java.lang.Object.
func (s *HeapSource) arrayClassID(elem uint64) uint64 {
	if elem == 0 {
		elem = s.objectClass
	}
	if elem == 0 {
		return unknownElementArray
	}
	return elem | 1
}

// queuedRecord is a translated record waiting to be handed out, with its
// HPROF payload.
type queuedRecord struct {
	rec     hprof.Record
	payload []byte
}

// HeapSource translates a JVMPI heap or object dump capture into HPROF
// records, as the hprof agent of JDK 1.2–1.4 did: the side channel's
// class-load and thread-start events become UTF8, LOAD_CLASS and
// START_THREAD records, the heap dump event's traces FRAME and TRACE
// records, each thread a ROOT_THREAD_OBJ, JNIEnv* pointers thread
// serials, and the buffer's records heap sub-records whose values are
// re-encoded big-endian and whose field lists come from the side channel
// (docs/jvmpi.md#translation-into-hprof-records). It is the hprof.Source
// of a JVMPI capture. Its class dumps' instance sizes are the VM's own
// object sizes, header included (decision 7 of
// docs/jvmpi.md#decisions-where-the-spec-is-silent): Sizes gives them.
type HeapSource struct {
	capture *Capture
	r       *Reader
	closer  io.Closer
	ids     int
	level   int

	queue []queuedRecord
	next  int
	cur   queuedRecord
	done  bool
	err   error

	names       map[string]uint64
	classSerial map[uint64]uint32
	envSerial   map[uint64]uint32
	declared    map[uint64]bool // array and invented classes given a LOAD_CLASS
	unknownEnv  map[uint64]bool
	dumps       int
	objectClass uint64 // java.lang.Object's class id, 0 if unknown
	vals        []uint64
	sizes       hprof.SizeFacts

	warnings     []hprof.Warning
	warningCount int
}

// OpenHeapSource loads the heap or object dump capture whose manifest is
// at manifest and opens the translation of its buffer.
func OpenHeapSource(manifest string) (*HeapSource, error) {
	c, err := LoadCapture(manifest)
	if err != nil {
		return nil, err
	}
	if err := c.holdsHeap(); err != nil {
		return nil, err
	}
	in, err := c.Open()
	if err != nil {
		return nil, err
	}
	return NewHeapSource(c, in)
}

// NewHeapSource translates the buffer in of the heap or object dump
// capture c, and closes in at its end. A bare buffer (BareCapture) has no
// side channel: a level-0 heap dump is read whole; other buffers up to
// their first class dump, which cannot be stepped over without the class
// layouts (ErrNeedClasses).
func NewHeapSource(c *Capture, in io.ReadCloser) (*HeapSource, error) {
	if err := c.holdsHeap(); err != nil {
		in.Close()
		return nil, err
	}
	r, err := NewReader(in, c.Options)
	if err != nil {
		in.Close()
		return nil, err
	}
	s := &HeapSource{capture: c, r: r, closer: in, ids: c.Options.IDSize, level: c.Options.Level,
		names: map[string]uint64{}, classSerial: map[uint64]uint32{}, envSerial: map[uint64]uint32{},
		declared: map[uint64]bool{}, unknownEnv: map[uint64]bool{},
		sizes: hprof.SizeFacts{SizeSource: "the JVMPI class dumps' (the VM's own, header included)", InstanceSizes: map[uint64]int64{}}}
	s.prelude()
	return s, nil
}

// holdsHeap says why a monitor dump capture has no heap to translate.
func (c *Capture) holdsHeap() error {
	if c.Options.Kind != MonitorDump {
		return nil
	}
	name := c.ManifestPath
	if c.Bare() {
		name = c.BufferPath
	}
	return fmt.Errorf("%s: a JVMPI monitor dump holds no heap; its threads and monitors are read by the commands on thread dumps", name)
}

// name returns the UTF8 id of text, queueing its UTF8 record the first time.
func (s *HeapSource) name(text string) uint64 {
	if id, ok := s.names[text]; ok {
		return id
	}
	id := uint64(len(s.names) + 1)
	s.names[text] = id
	rec := hprof.Record{Tag: hprof.TagUTF8, Offset: -1, UTF8: hprof.UTF8{ID: id, Text: []byte(text)}}
	s.queue = append(s.queue, queuedRecord{rec: rec})
	return id
}

func (s *HeapSource) top(rec hprof.Record) {
	rec.Offset = -1
	s.queue = append(s.queue, queuedRecord{rec: rec})
}

func (s *HeapSource) sub(rec hprof.Record, payload []byte) {
	rec.Tag, rec.Dump = hprof.TagHeapDump, 0
	s.queue = append(s.queue, queuedRecord{rec: rec, payload: payload})
}

// loadClass queues the LOAD_CLASS record of a class the buffer does not
// describe.
func (s *HeapSource) loadClass(id uint64, name string) {
	if s.declared[id] {
		return
	}
	s.declared[id] = true
	serial := uint32(len(s.classSerial) + len(s.declared))
	s.top(hprof.Record{Tag: hprof.TagLoadClass, LoadClass: hprof.LoadClass{Serial: serial, ClassID: id, NameID: s.name(name)}})
}

// prelude queues the top-level records made from the side channel and the
// dump event, and the start of the heap dump.
func (s *HeapSource) prelude() {
	ev := s.capture.ClassEvents
	methods := map[uint64]struct {
		class  *ClassInfo
		method *MethodInfo
	}{}
	for i := range ev.Classes {
		c := &ev.Classes[i]
		serial := uint32(i + 1)
		s.classSerial[uint64(c.ID)] = serial
		s.top(hprof.Record{Tag: hprof.TagLoadClass, LoadClass: hprof.LoadClass{Serial: serial, ClassID: uint64(c.ID), NameID: s.name(c.Name)}})
		if c.Name == "java.lang.Object" {
			s.objectClass = uint64(c.ID)
		}
		for k := range c.Methods {
			methods[uint64(c.Methods[k].ID)] = struct {
				class  *ClassInfo
				method *MethodInfo
			}{c, &c.Methods[k]}
		}
	}
	if s.level == 0 {
		s.warn(-1, "level-0 heap dump: objects have no class, size, length or references; instances are counted as <unknown>, object arrays as <unknown>[]")
	}
	if s.level == 1 {
		s.warn(-1, "level-1 heap dump: primitive fields, statics and array elements are not in the buffer; their values read as 0")
	}
	if s.capture.Bare() {
		if s.level == 0 {
			s.warn(-1, "bare buffer, no class-load side channel: classes are unknown, so class objects cannot be told from instances and count as <unknown>; threads are unknown")
		} else {
			s.warn(-1, "bare buffer, no class-load side channel: instances are read without their fields and classes, threads are unknown, and a class dump stops the reading")
		}
	}
	for i, t := range ev.Threads {
		s.envSerial[uint64(t.EnvID)] = uint32(i + 1)
	}
	traceOf := map[uint64]uint32{}
	var frameID uint64
	if hd := s.capture.Manifest.HeapDumpEvent; hd != nil {
		for k, tr := range hd.Traces {
			serial := uint32(k + 1)
			traceOf[uint64(tr.EnvID)] = serial
			var frames []uint64
			for _, f := range tr.Frames {
				frameID++
				fr := hprof.Frame{ID: frameID, Line: f.Line}
				if m, ok := methods[uint64(f.MethodID)]; ok {
					fr.MethodID, fr.SignatureID = s.name(m.method.Name), s.name(m.method.Signature)
					if m.class.SourceName != "" {
						fr.SourceID = s.name(m.class.SourceName)
					}
					fr.ClassSerial = s.classSerial[uint64(m.class.ID)]
				} else {
					fr.MethodID = s.name(fmt.Sprintf("<unknown method 0x%x>", uint64(f.MethodID)))
				}
				s.top(hprof.Record{Tag: hprof.TagFrame, Frame: fr})
				frames = append(frames, frameID)
			}
			s.top(hprof.Record{Tag: hprof.TagTrace, Trace: hprof.Trace{Serial: serial, ThreadSerial: s.envSerial[uint64(tr.EnvID)], FrameIDs: frames}})
		}
	}
	for i, t := range ev.Threads {
		s.top(hprof.Record{Tag: hprof.TagStartThread, StartThread: hprof.StartThread{ThreadSerial: uint32(i + 1),
			ThreadID: uint64(t.ThreadID), TraceSerial: traceOf[uint64(t.EnvID)], NameID: s.name(t.Name),
			GroupNameID: s.name(t.GroupName), ParentGroupNameID: s.name(t.ParentName)}})
	}
	s.top(hprof.Record{Tag: hprof.TagHeapDump})
	s.dumps = 1
	if s.capture.Options.Kind == HeapDump && s.level > 0 {
		for i, t := range ev.Threads {
			s.sub(hprof.Record{Sub: hprof.RootThreadObj, Offset: -1, Root: hprof.Root{Kind: hprof.RootThreadObj, ID: uint64(t.ThreadID),
				ThreadSerial: uint32(i + 1), FrameDepth: -1, TraceSerial: traceOf[uint64(t.EnvID)]}}, nil)
		}
	}
}

func (s *HeapSource) warn(off int64, format string, args ...any) {
	s.warningCount++
	if len(s.warnings) < 100 {
		s.warnings = append(s.warnings, hprof.Warning{Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
}

// Header describes the stream: the JVMPI level and the pointer size.
func (s *HeapSource) Header() hprof.Header {
	return hprof.Header{Version: fmt.Sprintf("%s, level %d", s.capture.Options.Kind, s.level), IDSize: s.ids}
}

// Traits are JVMPI's; a level-0 dump's objects have the classes the
// translation invents for them.
func (s *HeapSource) Traits() hprof.Traits {
	t := hprof.Traits{Format: "jvmpi", Producer: "jvmpi"}
	if s.level == 0 {
		t.InventedClasses = map[uint64]string{unknownInstanceClass: "<unknown>", unknownArrayClass: "<unknown>[]"}
	}
	return t
}

// Next advances to the next translated record.
func (s *HeapSource) Next() bool {
	for s.next >= len(s.queue) {
		s.queue, s.next = s.queue[:0], 0
		if s.done || s.err != nil {
			return false
		}
		if !s.r.Next() {
			s.done = true
			s.err = s.translateError(s.r.Err())
			s.closer.Close()
			return false
		}
		if err := s.translate(s.r.Record()); err != nil {
			s.err = s.translateError(err)
			s.closer.Close()
			return false
		}
	}
	s.cur = s.queue[s.next]
	s.next++
	return true
}

// translateError makes a truncated buffer a truncated HPROF stream for the
// builder, which keeps what was read before the cut.
func (s *HeapSource) translateError(err error) error {
	var fe *FormatError
	if errors.Is(err, ErrTruncated) && errors.As(err, &fe) {
		return &hprof.FormatError{File: fe.File, Offset: fe.Offset, Msg: fe.Msg, Err: hprof.ErrTruncated}
	}
	return err
}

// Record returns the current translated record.
func (s *HeapSource) Record() *hprof.Record { return &s.cur.rec }

// Err returns the error that stopped Next.
func (s *HeapSource) Err() error { return s.err }

// Payload returns the current record's HPROF payload.
func (s *HeapSource) Payload() ([]byte, error) { return s.cur.payload, nil }

// PayloadChunks hands the current record's HPROF payload to fn in one piece.
func (s *HeapSource) PayloadChunks(fn func(chunk []byte) error) error {
	if len(s.cur.payload) == 0 {
		return nil
	}
	return fn(s.cur.payload)
}

// IDSize is the pointer size of the buffer.
func (s *HeapSource) IDSize() int { return s.ids }

// ID decodes a big-endian id of the translated payloads.
func (s *HeapSource) ID(b []byte) uint64 {
	if s.ids == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return uint64(binary.BigEndian.Uint32(b))
}

// Warnings returns the first warnings of the translation.
func (s *HeapSource) Warnings() []hprof.Warning { return s.warnings }

// WarningCount counts the warnings of the translation.
func (s *HeapSource) WarningCount() int { return s.warningCount }

// Dumps is 1: a capture holds one heap dump.
func (s *HeapSource) Dumps() int { return s.dumps }

// Offset is how far the buffer was read.
func (s *HeapSource) Offset() int64 { return s.r.Offset() }

// BytesRead is how far the buffer was read.
func (s *HeapSource) BytesRead() int64 { return s.r.Offset() }

// Object tells nothing beyond the record.
func (s *HeapSource) Object() hprof.ObjectInfo { return hprof.ObjectInfo{} }

// Sizes returns the instance sizes of the class dumps.
func (s *HeapSource) Sizes() hprof.SizeFacts { return s.sizes }

func (s *HeapSource) appendID(b []byte, id uint64) []byte {
	if s.ids == 8 {
		return binary.BigEndian.AppendUint64(b, id)
	}
	return binary.BigEndian.AppendUint32(b, uint32(id))
}

// appendValue appends v big-endian in the width of type t.
func (s *HeapSource) appendValue(b []byte, t Type, v uint64) []byte {
	switch t.Size(s.ids) {
	case 1:
		return append(b, byte(v))
	case 2:
		return binary.BigEndian.AppendUint16(b, uint16(v))
	case 4:
		return binary.BigEndian.AppendUint32(b, uint32(v))
	}
	return binary.BigEndian.AppendUint64(b, v)
}

func (s *HeapSource) threadSerial(env uint64, off int64) uint32 {
	if env == 0 {
		return 0
	}
	serial, ok := s.envSerial[env]
	if !ok && !s.unknownEnv[env] {
		s.unknownEnv[env] = true
		s.warn(off, "root names the thread JNIEnv* 0x%x, which no thread-start event announced", env)
	}
	return serial
}

var rootKinds = map[RecordType]hprof.SubTag{
	RootUnknown: hprof.RootUnknown, RootJNIGlobal: hprof.RootJNIGlobal,
	RootJNILocal: hprof.RootJNILocal, RootJavaFrame: hprof.RootJavaFrame,
	RootNativeStack: hprof.RootNativeStack, RootStickyClass: hprof.RootStickyClass,
	RootThreadBlock: hprof.RootThreadBlock, RootMonitorUsed: hprof.RootMonitorUsed,
}

// translate queues the HPROF records of one buffer record.
func (s *HeapSource) translate(rec *Record) error {
	off := rec.Offset
	if kind, ok := rootKinds[rec.Type]; ok {
		rt := rec.Root
		s.sub(hprof.Record{Sub: kind, Offset: off, Root: hprof.Root{Kind: kind, ID: rt.ID, JNIRef: rt.GlobalRef,
			ThreadSerial: s.threadSerial(rt.Thread, off), FrameDepth: rt.Frame}}, nil)
		return nil
	}
	switch rec.Type {
	case LevelZeroObject:
		return s.levelZero(rec)
	case ClassDump:
		s.classDump(rec)
	case InstanceDump:
		return s.instance(rec)
	case ObjArrayDump:
		a := rec.ObjArray
		class := s.arrayClassID(a.ElemClassID)
		s.loadClass(class, s.elementName(a.ElemClassID)+"[]")
		payload := make([]byte, 0, len(a.Elements)*s.ids)
		for _, e := range a.Elements {
			payload = s.appendID(payload, e)
		}
		s.sub(hprof.Record{Sub: hprof.SubObjArrayDump, Offset: off, ObjArray: hprof.ObjArrayDump{ID: a.ID, Length: a.Length, ClassID: class}}, payload)
	case PrimArrayDump:
		a := rec.PrimArray
		pa := hprof.PrimArrayDump{ID: a.ID, Length: a.Length, ElemType: hprof.Type(a.ElemType)}
		if a.Data == nil {
			s.sub(hprof.Record{Sub: hprof.SubPrimArrayNoData, Offset: off, PrimArray: pa}, nil)
			return nil
		}
		size := a.ElemType.Size(s.ids)
		payload := make([]byte, 0, len(a.Data))
		for p := 0; p+size <= len(a.Data); p += size {
			payload = s.appendValue(payload, a.ElemType, s.r.Scalar(a.Data[p:], a.ElemType))
		}
		s.sub(hprof.Record{Sub: hprof.SubPrimArrayDump, Offset: off, PrimArray: pa}, payload)
	}
	return nil
}

// elementName names the element class of an object array.
func (s *HeapSource) elementName(id uint64) string {
	if c, ok := s.capture.Options.Classes.Lookup(id); ok {
		return c.Name
	}
	if id == 0 {
		return "java.lang.Object"
	}
	return fmt.Sprintf("<unknown class 0x%x>", id)
}

func (s *HeapSource) levelZero(rec *Record) error {
	o := rec.Object
	off := rec.Offset
	switch {
	case o.Type == NormalObject:
		if _, ok := s.capture.Options.Classes.Lookup(o.ID); ok {
			s.sub(hprof.Record{Sub: hprof.SubClassDump, Offset: off, Class: hprof.ClassDump{ID: o.ID}}, nil)
			return nil
		}
		s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Offset: off, Instance: hprof.InstanceDump{ID: o.ID, ClassID: unknownInstanceClass}}, nil)
	case o.Type == TypeObject:
		s.sub(hprof.Record{Sub: hprof.SubObjArrayDump, Offset: off, ObjArray: hprof.ObjArrayDump{ID: o.ID, ClassID: unknownArrayClass}}, nil)
	default:
		s.sub(hprof.Record{Sub: hprof.SubPrimArrayNoData, Offset: off, PrimArray: hprof.PrimArrayDump{ID: o.ID, ElemType: hprof.Type(o.Type)}}, nil)
	}
	return nil
}

func (s *HeapSource) classDump(rec *Record) {
	c := &rec.Class
	cd := hprof.ClassDump{ID: c.ID, SuperID: c.SuperID, LoaderID: c.LoaderID, SignersID: c.SignersID,
		ProtectionDomainID: c.ProtectionDomainID, Reserved1: c.NameStringID, Reserved2: c.Reserved,
		InstanceSize: c.InstanceSize}
	for _, k := range c.Constants {
		cd.Constants = append(cd.Constants, hprof.Constant{Index: k.Index, Type: hprof.Type(k.Type), Value: k.Value})
	}
	for i, f := range c.Layout.Statics {
		cd.Statics = append(cd.Statics, hprof.Static{NameID: s.name(f.Name), Type: hprof.Type(f.Type()), Value: c.Statics[i]})
	}
	for _, f := range c.Layout.Fields {
		cd.Fields = append(cd.Fields, hprof.Field{NameID: s.name(f.Name), Type: hprof.Type(f.Type())})
	}
	if _, ok := s.sizes.InstanceSizes[c.ID]; !ok && c.ID != 0 && c.InstanceSize != 0 {
		s.sizes.InstanceSizes[c.ID] = int64(c.InstanceSize)
	}
	if uint64(c.Layout.SuperID) != c.SuperID {
		s.warn(rec.Offset, "class dump of %s names the superclass 0x%x, its class-load event 0x%x", c.Layout.Name, c.SuperID, uint64(c.Layout.SuperID))
	}
	s.sub(hprof.Record{Sub: hprof.SubClassDump, Offset: rec.Offset, Class: cd}, nil)
}

// instance queues an INSTANCE_DUMP whose payload holds every field the
// class layouts declare, big-endian; at level 1 the primitive ones, absent
// from the buffer, are 0.
func (s *HeapSource) instance(rec *Record) error {
	in := rec.Instance
	if s.capture.Bare() {
		// Without class layouts the field bytes cannot be typed: the
		// instance is kept, without its fields.
		s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Offset: rec.Offset, Instance: hprof.InstanceDump{ID: in.ID, ClassID: in.ClassID}}, nil)
		return nil
	}
	s.vals = s.vals[:0]
	if err := s.r.InstanceFields(func(_ *ClassInfo, _ int, _ Type, v uint64) { s.vals = append(s.vals, v) }); err != nil {
		return err
	}
	var payload []byte
	k := 0
	for id := in.ClassID; id != 0; {
		c, _ := s.capture.Options.Classes.Lookup(id)
		for _, f := range c.Fields {
			t := f.Type()
			var v uint64
			if s.level == 2 || t == TypeObject {
				v = s.vals[k]
				k++
			}
			payload = s.appendValue(payload, t, v)
		}
		id = uint64(c.SuperID)
	}
	s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Offset: rec.Offset, Instance: hprof.InstanceDump{ID: in.ID, ClassID: in.ClassID, Size: uint32(len(payload))}}, payload)
	return nil
}
