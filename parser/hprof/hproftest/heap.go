package hproftest

import (
	"encoding/binary"
	"math"
)

// SubTag is the tag byte of a heap-dump sub-record.
type SubTag uint8

// Heap-dump sub-record tags (docs/hprof.md#heap-dump-sub-records), the
// Android ones included.
const (
	RootUnknown          SubTag = 0xFF
	RootJNIGlobal        SubTag = 0x01
	RootJNILocal         SubTag = 0x02
	RootJavaFrame        SubTag = 0x03
	RootNativeStack      SubTag = 0x04
	RootStickyClass      SubTag = 0x05
	RootThreadBlock      SubTag = 0x06
	RootMonitorUsed      SubTag = 0x07
	RootThreadObj        SubTag = 0x08
	SubClassDump         SubTag = 0x20
	SubInstanceDump      SubTag = 0x21
	SubObjArrayDump      SubTag = 0x22
	SubPrimArrayDump     SubTag = 0x23
	SubHeapDumpInfo      SubTag = 0xFE
	RootInternedString   SubTag = 0x89
	RootFinalizing       SubTag = 0x8A
	RootDebugger         SubTag = 0x8B
	RootReferenceCleanup SubTag = 0x8C
	RootVMInternal       SubTag = 0x8D
	RootJNIMonitor       SubTag = 0x8E
	SubUnreachable       SubTag = 0x90
	SubPrimArrayNoData   SubTag = 0xC3
)

// RootKinds returns the sub-tags Root accepts: every GC root, the Android
// ones included, and Dalvik's UNREACHABLE, which has a root's layout.
func RootKinds() []SubTag {
	return []SubTag{RootUnknown, RootJNIGlobal, RootJNILocal, RootJavaFrame, RootNativeStack,
		RootStickyClass, RootThreadBlock, RootMonitorUsed, RootThreadObj, RootInternedString,
		RootFinalizing, RootDebugger, RootReferenceCleanup, RootVMInternal, RootJNIMonitor,
		SubUnreachable}
}

// BeginHeapDump starts a heap dump; sub-records may be written until
// EndHeapDump.
func (w *Writer) BeginHeapDump() {
	if w.inHeap {
		w.fail("BeginHeapDump inside a heap dump")
		return
	}
	w.inHeap = true
	w.dumpSegments = 0
	if w.segmented && cap(w.heap) < w.segLimit {
		w.heap = make([]byte, 0, w.segLimit)
	}
}

// EndHeapDump ends the heap dump: it writes the HEAP_DUMP record, or the
// last segment and HEAP_DUMP_END. A segmented dump with no sub-record gets
// one empty segment.
func (w *Writer) EndHeapDump() {
	if !w.inHeap {
		w.fail("EndHeapDump without BeginHeapDump")
		return
	}
	if w.segmented {
		w.flushSegment()
		if w.dumpSegments == 0 {
			w.heapRecord(TagHeapDumpSegment, 0)
		}
		w.inHeap = false
		w.Record(TagHeapDumpEnd, nil)
		return
	}
	if uint64(len(w.heap)) > math.MaxUint32 {
		w.fail("HEAP_DUMP body of %d bytes does not fit a u4 length: use segments", len(w.heap))
		return
	}
	w.heapRecord(TagHeapDump, len(w.heap))
	w.write(w.heap)
	w.heap = w.heap[:0]
	w.inHeap = false
}

// EndSegment ends the open HEAP_DUMP_SEGMENT, if it holds anything, so
// that the next sub-record starts a new one. It fails in a dump made of a
// single HEAP_DUMP record.
func (w *Writer) EndSegment() {
	if !w.inHeap || !w.segmented {
		w.fail("EndSegment outside a segmented heap dump")
		return
	}
	w.flushSegment()
}

func (w *Writer) heapRecord(tag Tag, length int) {
	w.hdr = w.appendRecordHeader(w.hdr[:0], tag, uint32(length))
	w.write(w.hdr)
	w.heapRecords++
	w.dumpSegments++
}

func (w *Writer) flushSegment() {
	if len(w.heap) == 0 {
		return
	}
	w.heapRecord(TagHeapDumpSegment, len(w.heap))
	w.write(w.heap)
	w.heap = w.heap[:0]
}

// subRecord adds one sub-record, head followed by payload, to the heap
// dump. In a segmented dump a segment that would grow past the limit is
// written first, and a sub-record larger than the limit is streamed in a
// segment of its own.
func (w *Writer) subRecord(head, payload []byte) {
	if w.err != nil {
		return
	}
	if !w.inHeap {
		w.err = errNoHeapDump
		return
	}
	n := len(head) + len(payload)
	if w.segmented {
		if len(w.heap) > 0 && len(w.heap)+n > w.segLimit {
			w.flushSegment()
		}
		if n > w.segLimit {
			if uint64(n) > math.MaxUint32 {
				w.fail("%d-byte sub-record does not fit a u4 segment length", n)
				return
			}
			w.heapRecord(TagHeapDumpSegment, n)
			w.write(head)
			w.write(payload)
			return
		}
	}
	w.heap = append(w.heap, head...)
	w.heap = append(w.heap, payload...)
}

// Root is a GC-root sub-record. Kind says which; the other fields are
// written for the kinds that carry them.
type Root struct {
	Kind         SubTag
	ID           ID
	JNIRef       ID     // ROOT_JNI_GLOBAL
	ThreadSerial uint32 // JNI_LOCAL, JAVA_FRAME, NATIVE_STACK, THREAD_BLOCK, THREAD_OBJ, JNI_MONITOR
	FrameDepth   int32  // JNI_LOCAL, JAVA_FRAME, JNI_MONITOR (-1 unknown)
	TraceSerial  uint32 // THREAD_OBJ
}

// Root writes a GC-root sub-record (any kind RootKinds lists).
func (w *Writer) Root(r Root) {
	b := w.appendID(append(w.sub[:0], byte(r.Kind)), r.ID)
	switch r.Kind {
	case RootUnknown, RootStickyClass, RootMonitorUsed, RootInternedString, RootFinalizing,
		RootDebugger, RootReferenceCleanup, RootVMInternal, SubUnreachable:
	case RootJNIGlobal:
		b = w.appendID(b, r.JNIRef)
	case RootJNILocal, RootJavaFrame, RootJNIMonitor:
		b = binary.BigEndian.AppendUint32(b, r.ThreadSerial)
		b = binary.BigEndian.AppendUint32(b, uint32(r.FrameDepth))
	case RootNativeStack, RootThreadBlock:
		b = binary.BigEndian.AppendUint32(b, r.ThreadSerial)
	case RootThreadObj:
		b = binary.BigEndian.AppendUint32(b, r.ThreadSerial)
		b = binary.BigEndian.AppendUint32(b, r.TraceSerial)
	default:
		w.fail("Root of kind 0x%02X, which is not a root", uint8(r.Kind))
		return
	}
	w.sub = b
	w.subRecord(b, nil)
}

// HeapDumpInfo writes Android's HEAP_DUMP_INFO: the sub-records after it
// belong to the heap heapID (0 default, 'Z' zygote, 'A' app, 'I' image)
// named by the UTF8 record nameID.
func (w *Writer) HeapDumpInfo(heapID uint32, nameID ID) {
	b := binary.BigEndian.AppendUint32(append(w.sub[:0], byte(SubHeapDumpInfo)), heapID)
	w.sub = w.appendID(b, nameID)
	w.subRecord(w.sub, nil)
}

// ClassDump is a CLASS_DUMP sub-record as written, field by field.
type ClassDump struct {
	ID                 ID
	TraceSerial        uint32
	SuperID            ID
	LoaderID           ID
	SignersID          ID
	ProtectionDomainID ID
	Reserved1          ID
	Reserved2          ID
	InstanceSize       uint32
	Constants          []ConstantEntry
	Statics            []StaticEntry
	Fields             []FieldEntry
}

// ConstantEntry is a constant-pool entry of a CLASS_DUMP.
type ConstantEntry struct {
	Index uint16
	Value Value
}

// StaticEntry is a static field of a CLASS_DUMP and its value.
type StaticEntry struct {
	NameID ID
	Value  Value
}

// FieldEntry is an instance field declaration of a CLASS_DUMP.
type FieldEntry struct {
	NameID ID
	Type   Type
}

// ClassDump writes a CLASS_DUMP sub-record.
func (w *Writer) ClassDump(c ClassDump) {
	if len(c.Constants) > math.MaxUint16 || len(c.Statics) > math.MaxUint16 || len(c.Fields) > math.MaxUint16 {
		w.fail("CLASS_DUMP %#x has more than 65535 constants, statics or fields", c.ID)
		return
	}
	b := w.appendID(append(w.sub[:0], byte(SubClassDump)), c.ID)
	b = binary.BigEndian.AppendUint32(b, c.TraceSerial)
	for _, id := range []ID{c.SuperID, c.LoaderID, c.SignersID, c.ProtectionDomainID, c.Reserved1, c.Reserved2} {
		b = w.appendID(b, id)
	}
	b = binary.BigEndian.AppendUint32(b, c.InstanceSize)
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.Constants)))
	for _, k := range c.Constants {
		b = binary.BigEndian.AppendUint16(b, k.Index)
		b = w.appendValue(append(b, w.typeByte(k.Value.Type)), k.Value)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.Statics)))
	for _, s := range c.Statics {
		b = append(w.appendID(b, s.NameID), w.typeByte(s.Value.Type))
		b = w.appendValue(b, s.Value)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.Fields)))
	for _, f := range c.Fields {
		b = append(w.appendID(b, f.NameID), w.typeByte(f.Type))
	}
	w.sub = b
	w.subRecord(b, nil)
}

// typeByte is the type as CLASS_DUMP writes it: the code, or in "1.0"
// files the signature character.
func (w *Writer) typeByte(t Type) byte {
	if t.Size(w.idSize) == 0 {
		w.fail("invalid type code %d", t)
	}
	if w.v10 {
		return t.signature()
	}
	return byte(t)
}

func (w *Writer) appendValue(b []byte, v Value) []byte {
	if v.Type.Size(w.idSize) == 0 {
		w.fail("value of invalid type %d", v.Type)
		return b
	}
	if v.Type == TypeObject {
		return w.appendID(b, v.Bits)
	}
	return appendValue(b, w.idSize, v)
}

// InstanceDump is an INSTANCE_DUMP sub-record; Fields are the encoded
// field values (see AppendValues), this class's first, then its
// superclass's, up to java.lang.Object.
type InstanceDump struct {
	ID          ID
	TraceSerial uint32
	ClassID     ID
	Fields      []byte
}

// InstanceDump writes an INSTANCE_DUMP sub-record.
func (w *Writer) InstanceDump(d InstanceDump) {
	b := w.appendID(append(w.sub[:0], byte(SubInstanceDump)), d.ID)
	b = binary.BigEndian.AppendUint32(b, d.TraceSerial)
	b = w.appendID(b, d.ClassID)
	w.sub = binary.BigEndian.AppendUint32(b, uint32(len(d.Fields)))
	w.subRecord(w.sub, d.Fields)
}

// ObjArrayDump is an OBJ_ARRAY_DUMP sub-record. ClassID is the array
// class (the element class in JVMPI-era files).
type ObjArrayDump struct {
	ID          ID
	TraceSerial uint32
	ClassID     ID
	Elements    []ID
}

// ObjArrayDump writes an OBJ_ARRAY_DUMP sub-record.
func (w *Writer) ObjArrayDump(d ObjArrayDump) {
	b := w.appendID(append(w.sub[:0], byte(SubObjArrayDump)), d.ID)
	b = binary.BigEndian.AppendUint32(b, d.TraceSerial)
	b = binary.BigEndian.AppendUint32(b, uint32(len(d.Elements)))
	b = w.appendID(b, d.ClassID)
	for _, e := range d.Elements {
		b = w.appendID(b, e)
	}
	w.sub = b
	w.subRecord(b, nil)
}

// PrimArrayDump is a PRIM_ARRAY_DUMP sub-record; Data holds the packed
// big-endian elements (see Ints, Longs, UTF16, AppendValues).
type PrimArrayDump struct {
	ID          ID
	TraceSerial uint32
	Type        Type
	Data        []byte
}

// PrimArrayDump writes a PRIM_ARRAY_DUMP sub-record, or in a "1.0" dump
// the OBJ_ARRAY_DUMP with the type code in the class slot that stood for
// it.
func (w *Writer) PrimArrayDump(d PrimArrayDump) {
	n, ok := w.elements(d.Type, len(d.Data))
	if !ok {
		return
	}
	tag := SubPrimArrayDump
	if w.v10 {
		tag = SubObjArrayDump
	}
	b := w.appendID(append(w.sub[:0], byte(tag)), d.ID)
	b = binary.BigEndian.AppendUint32(b, d.TraceSerial)
	b = binary.BigEndian.AppendUint32(b, n)
	if w.v10 {
		b = w.appendID(b, ID(d.Type))
	} else {
		b = append(b, byte(d.Type))
	}
	w.sub = b
	w.subRecord(b, d.Data)
}

// elements is the element count of a primitive array of t with size data
// bytes.
func (w *Writer) elements(t Type, size int) (uint32, bool) {
	if t < TypeBoolean || t > TypeLong || t.Size(w.idSize) == 0 {
		w.fail("primitive array of invalid type %d", t)
		return 0, false
	}
	es := t.Size(w.idSize)
	if size%es != 0 || size/es > math.MaxUint32 {
		w.fail("%d bytes are not a valid %d-byte element count", size, es)
		return 0, false
	}
	return uint32(size / es), true
}

// PrimArrayNoData writes Android's PRIMITIVE_ARRAY_NODATA: a primitive
// array header of length elements with no element bytes.
func (w *Writer) PrimArrayNoData(id ID, traceSerial uint32, length uint32, t Type) {
	b := w.appendID(append(w.sub[:0], byte(SubPrimArrayNoData)), id)
	b = binary.BigEndian.AppendUint32(b, traceSerial)
	b = binary.BigEndian.AppendUint32(b, length)
	w.sub = append(b, byte(t))
	w.subRecord(w.sub, nil)
}
