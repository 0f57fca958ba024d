package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// Class ids the translation of a JVMPI heap dump gives the classes it has
// to invent. JVMPI object ids are 8-aligned VM addresses, so odd ids never
// name an object: an array class is its element class's id with the low
// bit set, and the small odd ids below name the rest.
const (
	jvmpiUnknownInstanceClass = 3 // level 0: instances and class objects
	jvmpiUnknownArrayClass    = 5 // level 0: object arrays
	jvmpiUnknownElementArray  = 1 // object arrays whose element class is 0
)

// arrayClassID is the class id the translation gives the array class
// whose element class is elem; an unknown (0) element class counts as
// java.lang.Object.
func (s *jvmpiSource) arrayClassID(elem uint64) uint64 {
	if elem == 0 {
		elem = s.objectClass
	}
	if elem == 0 {
		return jvmpiUnknownElementArray
	}
	return elem | 1
}

// heapFinisher is a RecordSource that corrects the heap built from it.
type heapFinisher interface {
	finishHeap(h *Heap)
}

// queuedRecord is a translated record waiting to be handed out, with its
// HPROF payload.
type queuedRecord struct {
	rec     hprof.Record
	payload []byte
}

// jvmpiSource translates a JVMPI heap or object dump capture into HPROF
// records, as the hprof agent of JDK 1.2–1.4 did: the side channel's
// class-load and thread-start events become UTF8, LOAD_CLASS and
// START_THREAD records, the heap dump event's traces FRAME and TRACE
// records, each thread a ROOT_THREAD_OBJ, JNIEnv* pointers thread
// serials, and the buffer's records heap sub-records whose values are
// re-encoded big-endian and whose field lists come from the side channel.
type jvmpiSource struct {
	capture *jvmpi.Capture
	r       *jvmpi.Reader
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

	warnings     []hprof.Warning
	warningCount int
}

// openJVMPI opens the capture whose manifest is at manifest.
func openJVMPI(manifest string) (*jvmpiSource, error) {
	c, err := jvmpi.LoadCapture(manifest)
	if err != nil {
		return nil, err
	}
	if c.Options.Kind == jvmpi.MonitorDump {
		return nil, fmt.Errorf("%s: a JVMPI monitor dump holds no heap; its threads and monitors are read by the commands on thread dumps", manifest)
	}
	in, err := c.Open()
	if err != nil {
		return nil, err
	}
	return newJVMPISource(c, in)
}

// openBareJVMPI opens f as the bare JVMPI heap or object dump buffer opt
// describes: one with no manifest and no side channel. A level-0 heap dump
// is read whole; other buffers up to their first class dump, which cannot
// be stepped over without the class layouts (jvmpi.ErrNeedClasses).
func openBareJVMPI(f *input.File, opt jvmpi.Options) (*jvmpiSource, error) {
	c := jvmpi.BareCapture(f.Name, opt)
	if c.Options.Kind == jvmpi.MonitorDump {
		return nil, fmt.Errorf("%s: a JVMPI monitor dump holds no heap; its threads and monitors are read by the commands on thread dumps", f.Name)
	}
	return newJVMPISource(c, io.NopCloser(f))
}

// newJVMPISource translates the buffer in of capture c, and closes in at
// its end.
func newJVMPISource(c *jvmpi.Capture, in io.ReadCloser) (*jvmpiSource, error) {
	r, err := jvmpi.NewReader(in, c.Options)
	if err != nil {
		in.Close()
		return nil, err
	}
	s := &jvmpiSource{capture: c, r: r, closer: in, ids: c.Options.IDSize, level: c.Options.Level,
		names: map[string]uint64{}, classSerial: map[uint64]uint32{}, envSerial: map[uint64]uint32{},
		declared: map[uint64]bool{}, unknownEnv: map[uint64]bool{}}
	s.prelude()
	return s, nil
}

// name returns the UTF8 id of text, queueing its UTF8 record the first time.
func (s *jvmpiSource) name(text string) uint64 {
	if id, ok := s.names[text]; ok {
		return id
	}
	id := uint64(len(s.names) + 1)
	s.names[text] = id
	rec := hprof.Record{Tag: hprof.TagUTF8, Offset: -1, UTF8: hprof.UTF8{ID: id, Text: []byte(text)}}
	s.queue = append(s.queue, queuedRecord{rec: rec})
	return id
}

func (s *jvmpiSource) top(rec hprof.Record) {
	rec.Offset = -1
	s.queue = append(s.queue, queuedRecord{rec: rec})
}

func (s *jvmpiSource) sub(rec hprof.Record, payload []byte) {
	rec.Tag, rec.Dump = hprof.TagHeapDump, 0
	s.queue = append(s.queue, queuedRecord{rec: rec, payload: payload})
}

// loadClass queues the LOAD_CLASS record of a class the buffer does not
// describe.
func (s *jvmpiSource) loadClass(id uint64, name string) {
	if s.declared[id] {
		return
	}
	s.declared[id] = true
	serial := uint32(len(s.classSerial) + len(s.declared))
	s.top(hprof.Record{Tag: hprof.TagLoadClass, LoadClass: hprof.LoadClass{Serial: serial, ClassID: id, NameID: s.name(name)}})
}

// prelude queues the top-level records made from the side channel and the
// dump event, and the start of the heap dump.
func (s *jvmpiSource) prelude() {
	ev := s.capture.ClassEvents
	methods := map[uint64]struct {
		class  *jvmpi.ClassInfo
		method *jvmpi.MethodInfo
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
				class  *jvmpi.ClassInfo
				method *jvmpi.MethodInfo
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
	if s.capture.Options.Kind == jvmpi.HeapDump && s.level > 0 {
		for i, t := range ev.Threads {
			s.sub(hprof.Record{Sub: hprof.RootThreadObj, Offset: -1, Root: hprof.Root{Kind: hprof.RootThreadObj, ID: uint64(t.ThreadID),
				ThreadSerial: uint32(i + 1), FrameDepth: -1, TraceSerial: traceOf[uint64(t.EnvID)]}}, nil)
		}
	}
}

func (s *jvmpiSource) warn(off int64, format string, args ...any) {
	s.warningCount++
	if len(s.warnings) < 100 {
		s.warnings = append(s.warnings, hprof.Warning{Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
}

// Header describes the stream: the JVMPI level and the pointer size.
func (s *jvmpiSource) Header() hprof.Header {
	return hprof.Header{Version: fmt.Sprintf("%s, level %d", s.capture.Options.Kind, s.level), IDSize: s.ids}
}

// Next advances to the next translated record.
func (s *jvmpiSource) Next() bool {
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
func (s *jvmpiSource) translateError(err error) error {
	var fe *jvmpi.FormatError
	if errors.Is(err, jvmpi.ErrTruncated) && errors.As(err, &fe) {
		return &hprof.FormatError{File: fe.File, Offset: fe.Offset, Msg: fe.Msg, Err: hprof.ErrTruncated}
	}
	return err
}

// Record returns the current translated record.
func (s *jvmpiSource) Record() *hprof.Record { return &s.cur.rec }

// Err returns the error that stopped Next.
func (s *jvmpiSource) Err() error { return s.err }

// Payload returns the current record's HPROF payload.
func (s *jvmpiSource) Payload() ([]byte, error) { return s.cur.payload, nil }

// PayloadChunks hands the current record's HPROF payload to fn in one piece.
func (s *jvmpiSource) PayloadChunks(fn func(chunk []byte) error) error {
	if len(s.cur.payload) == 0 {
		return nil
	}
	return fn(s.cur.payload)
}

// IDSize is the pointer size of the buffer.
func (s *jvmpiSource) IDSize() int { return s.ids }

// ID decodes a big-endian id of the translated payloads.
func (s *jvmpiSource) ID(b []byte) uint64 {
	if s.ids == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return uint64(binary.BigEndian.Uint32(b))
}

// Warnings returns the first warnings of the translation.
func (s *jvmpiSource) Warnings() []hprof.Warning { return s.warnings }

// WarningCount counts the warnings of the translation.
func (s *jvmpiSource) WarningCount() int { return s.warningCount }

// Dumps is 1: a capture holds one heap dump.
func (s *jvmpiSource) Dumps() int { return s.dumps }

// Offset is how far the buffer was read.
func (s *jvmpiSource) Offset() int64 { return s.r.Offset() }

func (s *jvmpiSource) appendID(b []byte, id uint64) []byte {
	if s.ids == 8 {
		return binary.BigEndian.AppendUint64(b, id)
	}
	return binary.BigEndian.AppendUint32(b, uint32(id))
}

// appendValue appends v big-endian in the width of type t.
func (s *jvmpiSource) appendValue(b []byte, t jvmpi.Type, v uint64) []byte {
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

func (s *jvmpiSource) threadSerial(env uint64, off int64) uint32 {
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

var jvmpiRootKinds = map[jvmpi.RecordType]hprof.SubTag{
	jvmpi.RootUnknown: hprof.RootUnknown, jvmpi.RootJNIGlobal: hprof.RootJNIGlobal,
	jvmpi.RootJNILocal: hprof.RootJNILocal, jvmpi.RootJavaFrame: hprof.RootJavaFrame,
	jvmpi.RootNativeStack: hprof.RootNativeStack, jvmpi.RootStickyClass: hprof.RootStickyClass,
	jvmpi.RootThreadBlock: hprof.RootThreadBlock, jvmpi.RootMonitorUsed: hprof.RootMonitorUsed,
}

// translate queues the HPROF records of one buffer record.
func (s *jvmpiSource) translate(rec *jvmpi.Record) error {
	off := rec.Offset
	if kind, ok := jvmpiRootKinds[rec.Type]; ok {
		rt := rec.Root
		s.sub(hprof.Record{Sub: kind, Offset: off, Root: hprof.Root{Kind: kind, ID: rt.ID, JNIRef: rt.GlobalRef,
			ThreadSerial: s.threadSerial(rt.Thread, off), FrameDepth: rt.Frame}}, nil)
		return nil
	}
	switch rec.Type {
	case jvmpi.LevelZeroObject:
		return s.levelZero(rec)
	case jvmpi.ClassDump:
		s.classDump(rec)
	case jvmpi.InstanceDump:
		return s.instance(rec)
	case jvmpi.ObjArrayDump:
		a := rec.ObjArray
		class := s.arrayClassID(a.ElemClassID)
		s.loadClass(class, s.elementName(a.ElemClassID)+"[]")
		payload := make([]byte, 0, len(a.Elements)*s.ids)
		for _, e := range a.Elements {
			payload = s.appendID(payload, e)
		}
		s.sub(hprof.Record{Sub: hprof.SubObjArrayDump, Offset: off, ObjArray: hprof.ObjArrayDump{ID: a.ID, Length: a.Length, ClassID: class}}, payload)
	case jvmpi.PrimArrayDump:
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
func (s *jvmpiSource) elementName(id uint64) string {
	if c, ok := s.capture.Options.Classes.Lookup(id); ok {
		return c.Name
	}
	if id == 0 {
		return "java.lang.Object"
	}
	return fmt.Sprintf("<unknown class 0x%x>", id)
}

func (s *jvmpiSource) levelZero(rec *jvmpi.Record) error {
	o := rec.Object
	off := rec.Offset
	switch {
	case o.Type == jvmpi.NormalObject:
		if _, ok := s.capture.Options.Classes.Lookup(o.ID); ok {
			s.sub(hprof.Record{Sub: hprof.SubClassDump, Offset: off, Class: hprof.ClassDump{ID: o.ID}}, nil)
			return nil
		}
		s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Offset: off, Instance: hprof.InstanceDump{ID: o.ID, ClassID: jvmpiUnknownInstanceClass}}, nil)
	case o.Type == jvmpi.TypeObject:
		s.sub(hprof.Record{Sub: hprof.SubObjArrayDump, Offset: off, ObjArray: hprof.ObjArrayDump{ID: o.ID, ClassID: jvmpiUnknownArrayClass}}, nil)
	default:
		s.sub(hprof.Record{Sub: hprof.SubPrimArrayNoData, Offset: off, PrimArray: hprof.PrimArrayDump{ID: o.ID, ElemType: hprof.Type(o.Type)}}, nil)
	}
	return nil
}

func (s *jvmpiSource) classDump(rec *jvmpi.Record) {
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
	if uint64(c.Layout.SuperID) != c.SuperID {
		s.warn(rec.Offset, "class dump of %s names the superclass 0x%x, its class-load event 0x%x", c.Layout.Name, c.SuperID, uint64(c.Layout.SuperID))
	}
	s.sub(hprof.Record{Sub: hprof.SubClassDump, Offset: rec.Offset, Class: cd}, nil)
}

// instance queues an INSTANCE_DUMP whose payload holds every field the
// class layouts declare, big-endian; at level 1 the primitive ones, absent
// from the buffer, are 0.
func (s *jvmpiSource) instance(rec *jvmpi.Record) error {
	in := rec.Instance
	if s.capture.Bare() {
		// Without class layouts the field bytes cannot be typed: the
		// instance is kept, without its fields.
		s.sub(hprof.Record{Sub: hprof.SubInstanceDump, Offset: rec.Offset, Instance: hprof.InstanceDump{ID: in.ID, ClassID: in.ClassID}}, nil)
		return nil
	}
	s.vals = s.vals[:0]
	if err := s.r.InstanceFields(func(_ *jvmpi.ClassInfo, _ int, _ jvmpi.Type, v uint64) { s.vals = append(s.vals, v) }); err != nil {
		return err
	}
	var payload []byte
	k := 0
	for id := in.ClassID; id != 0; {
		c, _ := s.capture.Options.Classes.Lookup(id)
		for _, f := range c.Fields {
			t := f.Type()
			var v uint64
			if s.level == 2 || t == jvmpi.TypeObject {
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

// finishHeap marks the heap as JVMPI's and takes the JVM sizes of
// instances from the class dumps, which hold the VM's own object sizes,
// header included (decision 7 of
// docs/jvmpi.md#decisions-where-the-spec-is-silent).
func (s *jvmpiSource) finishHeap(h *Heap) {
	h.Source.Producer = "jvmpi"
	sized := 0
	for i := range h.Classes {
		cl := &h.Classes[i]
		if cl.IsArray() || cl.DumpInstanceSize == 0 {
			continue
		}
		h.classSize[i] = int64(cl.DumpInstanceSize)
		sized++
	}
	if sized > 0 {
		h.LayoutReason = "instance sizes are the JVMPI class dumps' (the VM's own, header included); arrays and class objects: " + h.LayoutReason
	}
	if s.level == 0 {
		// The stand-in classes of level-0 objects have no class dump,
		// no class object and no name record: they are named here.
		for id, name := range map[uint64]string{jvmpiUnknownInstanceClass: "<unknown>", jvmpiUnknownArrayClass: "<unknown>[]"} {
			if c, ok := h.ClassByID(id); ok {
				h.Classes[c].Name = name
			}
		}
	}
}

// JVMPIMonitor is one record of a JVMPI monitor dump, decoded: the lock,
// its owner's name (empty when unowned), the owner's entry count and the
// names of the threads waiting to enter it and waiting to be notified, in
// buffer order. Null JNIEnv* entries (waiters that vanished) are left out.
type JVMPIMonitor struct {
	Lock       threaddump.Lock
	Owner      string
	EntryCount uint32
	Entering   []string
	Notified   []string
}

// jvmpiThreadStates maps the status codes of a monitor dump event, flags
// removed, to java.lang.Thread.State names (docs/jvmpi.md#constants).
var jvmpiThreadStates = map[int32]string{
	jvmpi.ThreadRunnable: "RUNNABLE", jvmpi.ThreadMonitorWait: "BLOCKED", jvmpi.ThreadCondvarWait: "WAITING",
}

// ReadJVMPIMonitorDump reads the JVMPI monitor dump capture whose manifest
// is at manifest. Its threads are the side channel's thread-start events,
// named and in that order, with their stacks and states from the monitor
// dump event, followed by any thread the buffer names that no event
// announced (named after its JNIEnv*). Each owner holds the monitor, each
// thread waiting to enter it enters it, and each thread waiting to be
// notified waits on it (no wait-for edge: decision 6 of
// docs/jvmpi.md#decisions-where-the-spec-is-silent). Raw
// monitors are named from the side channel by their name pointer; Java
// monitors carry their object's class when an object-alloc event gives it.
func ReadJVMPIMonitorDump(manifest string) (*threaddump.ThreadDump, []JVMPIMonitor, error) {
	c, err := jvmpi.LoadCapture(manifest)
	if err != nil {
		return nil, nil, err
	}
	if c.Options.Kind != jvmpi.MonitorDump {
		return nil, nil, fmt.Errorf("%s: a JVMPI %s capture, not a monitor dump", manifest, c.Options.Kind)
	}
	in, err := c.Open()
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	return readJVMPIMonitors(c, in)
}

// ReadJVMPIMonitorBuffer reads a bare JVMPI monitor dump buffer from in,
// described by opt (its Kind must be jvmpi.MonitorDump) and named name in
// errors. With no side channel, threads are named by their JNIEnv*, raw
// monitors by their name pointer, and no thread has a stack or a state.
func ReadJVMPIMonitorBuffer(in io.Reader, name string, opt jvmpi.Options) (*threaddump.ThreadDump, []JVMPIMonitor, error) {
	c := jvmpi.BareCapture(name, opt)
	if c.Options.Kind != jvmpi.MonitorDump {
		return nil, nil, fmt.Errorf("%s: a JVMPI %s holds no threads or monitors; read it with the heap commands", name, opt.Kind)
	}
	return readJVMPIMonitors(c, in)
}

// readJVMPIMonitors reads the monitor dump buffer in of capture c.
func readJVMPIMonitors(c *jvmpi.Capture, in io.Reader) (*threaddump.ThreadDump, []JVMPIMonitor, error) {
	r, err := jvmpi.NewReader(in, c.Options)
	if err != nil {
		return nil, nil, err
	}
	ev := c.MonitorEvents
	d := &threaddump.ThreadDump{Format: "JVMPI monitor dump"}
	thread := map[uint64]int{}
	for _, t := range ev.Threads {
		thread[uint64(t.EnvID)] = len(d.Threads)
		d.Threads = append(d.Threads, threaddump.ThreadSnapshot{Name: t.Name, ID: fmt.Sprintf("0x%x", uint64(t.EnvID))})
	}
	// threadOf returns the thread of JNIEnv* env, adding one that no
	// thread-start event announced.
	threadOf := func(env uint64) *threaddump.ThreadSnapshot {
		i, ok := thread[env]
		if !ok {
			i = len(d.Threads)
			thread[env] = i
			d.Threads = append(d.Threads, threaddump.ThreadSnapshot{Name: fmt.Sprintf("JNIEnv 0x%x", env), ID: fmt.Sprintf("0x%x", env)})
		}
		return &d.Threads[i]
	}
	methods := map[uint64]Frame{}
	for _, m := range ev.Methods {
		methods[uint64(m.ID)] = Frame{Class: m.ClassName, Method: m.Name, Line: LineUnknown}
	}
	for k, tr := range ev.Event.Traces {
		t := threadOf(uint64(tr.EnvID))
		for _, f := range tr.Frames {
			fr, ok := methods[uint64(f.MethodID)]
			if !ok {
				fr.Method = fmt.Sprintf("<unknown method 0x%x>", uint64(f.MethodID))
			}
			fr.Line = f.Line
			t.Frames = append(t.Frames, fr)
		}
		if k < len(ev.Event.ThreadsStatus) {
			st := ev.Event.ThreadsStatus[k]
			t.State = jvmpiThreadStates[st&^(jvmpi.ThreadSuspended|jvmpi.ThreadInterrupted)]
			var notes []string
			if st&jvmpi.ThreadSuspended != 0 {
				notes = append(notes, "suspended")
			}
			if st&jvmpi.ThreadInterrupted != 0 {
				notes = append(notes, "interrupted")
			}
			t.StateDetail = strings.Join(notes, ", ")
		}
	}
	rawNames := map[uint64]string{}
	for _, m := range ev.RawMonitors {
		rawNames[uint64(m.NamePtr)] = m.Name
	}
	classNames := map[uint64]string{}
	for _, cl := range ev.Classes {
		classNames[uint64(cl.ID)] = cl.Name
	}
	objectClass := map[uint64]string{}
	for _, o := range ev.Objects {
		objectClass[uint64(o.ObjectID)] = classNames[uint64(o.ClassID)]
	}
	// name adds the lock to the locks of the thread of JNIEnv* env and
	// returns the thread's name.
	name := func(env uint64, lock threaddump.Lock, action threaddump.LockAction) string {
		t := threadOf(env)
		t.Locks = append(t.Locks, threaddump.ThreadLock{Lock: lock, Action: action, Frame: -1})
		return t.Name
	}
	var monitors []JVMPIMonitor
	for r.Next() {
		rec := r.Record().Monitor
		lock := threaddump.Lock{Kind: threaddump.LockMonitor, ID: rec.Object, Class: objectClass[rec.Object]}
		if rec.Kind == jvmpi.MonitorRaw {
			lock = threaddump.Lock{Kind: threaddump.LockRawMonitor, ID: rec.RawID, Name: rawNames[rec.NamePtr]}
			if lock.Name == "" {
				lock.Name = fmt.Sprintf("<raw monitor named at 0x%x>", rec.NamePtr)
			}
		}
		m := JVMPIMonitor{Lock: lock, EntryCount: rec.EntryCount}
		if rec.Owner != 0 {
			m.Owner = name(rec.Owner, lock, threaddump.Holds)
		}
		for _, env := range rec.Entering {
			if env != 0 {
				m.Entering = append(m.Entering, name(env, lock, threaddump.Enters))
			}
		}
		for _, env := range rec.Notified {
			if env != 0 {
				m.Notified = append(m.Notified, name(env, lock, threaddump.WaitsOn))
			}
		}
		monitors = append(monitors, m)
	}
	if err := r.Err(); err != nil {
		if !errors.Is(err, jvmpi.ErrTruncated) {
			return nil, nil, err
		}
		d.Truncated = true
	}
	return d, monitors, nil
}
