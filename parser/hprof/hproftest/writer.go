// Package hproftest writes synthetic HPROF binary heap dumps for tests and
// benchmarks. It is written from the format description in docs/hprof.md
// and shares no code with the reader it helps to test.
//
// A Writer streams a dump to an io.Writer: the header, any top-level
// record, and heap dumps made of one HEAP_DUMP record or of
// HEAP_DUMP_SEGMENTs closed by HEAP_DUMP_END, with every sub-record kind.
// Low-level methods write exactly the fields they are given; the helpers
// (Class, Instance, ObjectArray, PrimArray, JDK) hand out fresh
// identifiers, serials and realistic object addresses. Errors are sticky,
// as in bufio.Writer: after the first one every method does nothing, and
// Err, Flush and Close report it.
//
// Segmented heap dumps are written in constant memory: the Writer holds at
// most one segment, and a sub-record larger than a segment is written
// straight through in a segment of its own. A single HEAP_DUMP record is
// held in memory until EndHeapDump, because its length comes first.
//
// WriteRealistic writes a large dump of realistic shape for benchmarks.
package hproftest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Tag is the tag byte of a top-level record.
type Tag uint8

// Top-level record tags (docs/hprof.md#top-level-records).
const (
	TagUTF8            Tag = 0x01
	TagLoadClass       Tag = 0x02
	TagUnloadClass     Tag = 0x03
	TagFrame           Tag = 0x04
	TagTrace           Tag = 0x05
	TagAllocSites      Tag = 0x06
	TagHeapSummary     Tag = 0x07
	TagStartThread     Tag = 0x0A
	TagEndThread       Tag = 0x0B
	TagHeapDump        Tag = 0x0C
	TagCPUSamples      Tag = 0x0D
	TagControlSettings Tag = 0x0E
	TagHeapDumpSegment Tag = 0x1C
	TagHeapDumpEnd     Tag = 0x2C
)

// HeapRecords chooses how heap dumps are framed.
type HeapRecords int

const (
	// HeapRecordsByVersion frames heap dumps as the version implies:
	// one HEAP_DUMP record for "1.0" and "1.0.1", segments otherwise.
	HeapRecordsByVersion HeapRecords = iota
	// HeapRecordsSingle writes each heap dump as one HEAP_DUMP record.
	HeapRecordsSingle
	// HeapRecordsSegmented writes each heap dump as HEAP_DUMP_SEGMENT
	// records followed by HEAP_DUMP_END.
	HeapRecordsSegmented
)

// DefaultSegmentSize is the default bound on a HEAP_DUMP_SEGMENT body:
// JDK 15+ writers fill a 1 MiB buffer, record header included.
const DefaultSegmentSize = 1<<20 - 9

// Options configure a Writer. The zero value writes a "JAVA PROFILE 1.0.2"
// dump with 8-byte identifiers in segments of DefaultSegmentSize.
type Options struct {
	// Version follows "JAVA PROFILE " in the header: "1.0", "1.0.1",
	// "1.0.2" (the default) or "1.0.3"; other strings are written as
	// given. "1.0" also changes the encoding (docs/hprof.md#file-header):
	// CLASS_DUMP types are signature characters and primitive arrays are
	// written as OBJ_ARRAY_DUMP with the type code in the class slot.
	Version string
	// IDSize is the identifier size, 4 or 8 (default 8).
	IDSize int
	// Time is the header timestamp (default 2024-01-02 03:04:05.678 UTC).
	Time time.Time
	// HeapRecords chooses single HEAP_DUMP records or segments.
	HeapRecords HeapRecords
	// SegmentSize bounds the body of a HEAP_DUMP_SEGMENT (default
	// DefaultSegmentSize). Segments are cut between sub-records; a larger
	// sub-record gets a segment of its own.
	SegmentSize int
	// BufferSize is the size of the output buffer (default 1 MiB).
	BufferSize int
	// Sizes spaces the addresses the helpers give objects (default
	// LayoutCompressedOops for 8-byte identifiers, Layout32 for 4).
	Sizes Sizer
	// ObjectBase is the first object address the helpers hand out
	// (default 0x700000000 for 8-byte identifiers, 0x10000000 for 4).
	ObjectBase uint64
	// ObjectTrace is the stack trace serial the helpers write in classes
	// and objects (HotSpot writes its dummy trace 1; the default is 0).
	ObjectTrace uint32
}

// DefaultTime is the header timestamp written when Options.Time is zero.
var DefaultTime = time.Date(2024, 1, 2, 3, 4, 5, 678e6, time.UTC)

// Writer writes one HPROF dump. It is not safe for concurrent use.
type Writer struct {
	out       *bufio.Writer
	err       error
	written   int64 // bytes handed to out
	idSize    int
	v10       bool
	segmented bool
	segLimit  int
	sizes     Sizer
	trace     uint32
	time      uint32 // time field of the next top-level records

	inHeap       bool
	heap         []byte // unwritten body of the open heap record
	heapRecords  int    // HEAP_DUMP and HEAP_DUMP_SEGMENT records written
	dumpSegments int    // segments written in the open dump

	objects     *IDAllocator
	names       *IDAllocator
	interned    map[string]ID
	nextFrame   ID
	classSerial uint32
	traceSerial uint32

	hdr []byte // scratch for record headers
	top []byte // scratch for top-level bodies
	sub []byte // scratch for sub-records
}

// New writes the header to dst and returns a Writer for the records.
func New(dst io.Writer, opt Options) *Writer {
	if opt.Version == "" {
		opt.Version = "1.0.2"
	}
	if opt.IDSize == 0 {
		opt.IDSize = 8
	}
	if opt.Time.IsZero() {
		opt.Time = DefaultTime
	}
	if opt.SegmentSize <= 0 {
		opt.SegmentSize = DefaultSegmentSize
	}
	if opt.BufferSize <= 0 {
		opt.BufferSize = 1 << 20
	}
	w := &Writer{
		out:       bufio.NewWriterSize(dst, opt.BufferSize),
		idSize:    opt.IDSize,
		v10:       opt.Version == "1.0",
		segLimit:  opt.SegmentSize,
		sizes:     opt.Sizes,
		trace:     opt.ObjectTrace,
		interned:  make(map[string]ID),
		nextFrame: 1,
	}
	switch opt.HeapRecords {
	case HeapRecordsSingle:
	case HeapRecordsSegmented:
		w.segmented = true
	default:
		w.segmented = opt.Version != "1.0" && opt.Version != "1.0.1"
	}
	objectBase, nameBase := uint64(0x7_0000_0000), uint64(0x7f3a_0000_0000)
	switch opt.IDSize {
	case 8:
		if w.sizes == nil {
			w.sizes = LayoutCompressedOops
		}
	case 4:
		if w.sizes == nil {
			w.sizes = Layout32
		}
		objectBase, nameBase = 0x1000_0000, 0x0040_0000
	default:
		w.err = fmt.Errorf("hproftest: identifier size %d: must be 4 or 8", opt.IDSize)
		return w
	}
	if opt.ObjectBase != 0 {
		objectBase = opt.ObjectBase
	}
	w.objects = NewIDAllocator(objectBase, 8)
	w.names = NewIDAllocator(nameBase, 8)

	hdr := append([]byte("JAVA PROFILE "+opt.Version), 0)
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(opt.IDSize))
	hdr = binary.BigEndian.AppendUint64(hdr, uint64(opt.Time.UnixMilli()))
	w.write(hdr)
	return w
}

// IDSize is the identifier size of the dump.
func (w *Writer) IDSize() int { return w.idSize }

// Err returns the first error met, or nil.
func (w *Writer) Err() error { return w.err }

// Written is the size of the dump so far, bytes still held in the Writer
// included. Outside a heap dump it is the offset of the next record.
func (w *Writer) Written() int64 {
	n := w.written
	if len(w.heap) > 0 {
		n += 9 + int64(len(w.heap))
	}
	return n
}

// HeapRecords is the number of HEAP_DUMP and HEAP_DUMP_SEGMENT records
// written so far.
func (w *Writer) HeapRecords() int { return w.heapRecords }

// Flush writes what the Writer holds to the destination: the open segment
// of a segmented heap dump, without ending the dump (a file that stops
// there lacks its HEAP_DUMP_END), and the output buffer. The body of an
// open single HEAP_DUMP record stays held.
func (w *Writer) Flush() error {
	if w.segmented {
		w.flushSegment()
	}
	if w.err == nil {
		w.err = w.out.Flush()
	}
	return w.err
}

// Close ends an open heap dump and flushes. It does not close the
// destination.
func (w *Writer) Close() error {
	if w.inHeap {
		w.EndHeapDump()
	}
	return w.Flush()
}

// Alloc returns the address of a new object of size bytes from the
// Writer's allocator, for callers that size objects themselves.
func (w *Writer) Alloc(size int64) ID { return w.objects.Next(size) }

// NextAddress returns the address the next allocated object will get.
func (w *Writer) NextAddress() ID { return w.objects.Peek() }

// Sizes returns the Sizer the helpers use.
func (w *Writer) Sizes() Sizer { return w.sizes }

// SetRecordTime sets the time field (microseconds since the header time)
// of the top-level records written from now on.
func (w *Writer) SetRecordTime(us uint32) { w.time = us }

func (w *Writer) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("hproftest: "+format, args...)
	}
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.out.Write(p)
	w.written += int64(n)
	w.err = err
}

func (w *Writer) appendID(b []byte, id ID) []byte {
	if w.idSize == 4 {
		if id > math.MaxUint32 {
			w.fail("identifier %#x does not fit in 4 bytes", id)
		}
		return binary.BigEndian.AppendUint32(b, uint32(id))
	}
	return binary.BigEndian.AppendUint64(b, id)
}

func (w *Writer) appendRecordHeader(b []byte, tag Tag, length uint32) []byte {
	b = append(b, byte(tag))
	b = binary.BigEndian.AppendUint32(b, w.time)
	return binary.BigEndian.AppendUint32(b, length)
}

// beforeTop makes room for a top-level record: an open segment is
// finished first. In a single HEAP_DUMP record the top-level record goes
// before it, since that record is written only when it ends.
func (w *Writer) beforeTop() {
	if w.inHeap && w.segmented {
		w.flushSegment()
	}
}

// Record writes a top-level record of any tag, known or not, with the
// given body.
func (w *Writer) Record(tag Tag, body []byte) {
	if uint64(len(body)) > math.MaxUint32 {
		w.fail("%d-byte record body does not fit a u4 length", len(body))
		return
	}
	w.beforeTop()
	w.hdr = w.appendRecordHeader(w.hdr[:0], tag, uint32(len(body)))
	w.write(w.hdr)
	w.write(body)
}

// RecordHeader writes only the 9-byte header of a top-level record, with
// whatever length the caller claims; Raw can follow with a body.
func (w *Writer) RecordHeader(tag Tag, length uint32) {
	w.beforeTop()
	w.hdr = w.appendRecordHeader(w.hdr[:0], tag, length)
	w.write(w.hdr)
}

// Raw writes p as it is: into the open heap record when a heap dump is
// open (as one unsplittable sub-record), otherwise straight to the stream.
func (w *Writer) Raw(p []byte) {
	if w.inHeap {
		w.subRecord(p, nil)
		return
	}
	w.write(p)
}

// topRecord writes the body w.top holds as a record of tag.
func (w *Writer) topRecord(tag Tag) {
	w.Record(tag, w.top)
}

// UTF8 writes a UTF8 record with a fresh identifier and returns it.
func (w *Writer) UTF8(text string) ID {
	id := w.names.Next(int64(len(text)) + 16)
	w.UTF8WithID(id, text)
	return id
}

// UTF8WithID writes a UTF8 record with the given identifier.
func (w *Writer) UTF8WithID(id ID, text string) {
	w.top = append(w.appendID(w.top[:0], id), text...)
	w.topRecord(TagUTF8)
}

// Name returns the identifier of a UTF8 record holding text, writing the
// record the first time text is asked for.
func (w *Writer) Name(text string) ID {
	if id, ok := w.interned[text]; ok {
		return id
	}
	id := w.UTF8(text)
	w.interned[text] = id
	return id
}

// LoadClass is the body of a LOAD_CLASS record.
type LoadClass struct {
	Serial      uint32
	ClassID     ID
	TraceSerial uint32
	NameID      ID
}

// LoadClass writes a LOAD_CLASS record.
func (w *Writer) LoadClass(c LoadClass) {
	b := binary.BigEndian.AppendUint32(w.top[:0], c.Serial)
	b = w.appendID(b, c.ClassID)
	b = binary.BigEndian.AppendUint32(b, c.TraceSerial)
	w.top = w.appendID(b, c.NameID)
	w.topRecord(TagLoadClass)
}

// UnloadClass writes an UNLOAD_CLASS record.
func (w *Writer) UnloadClass(classSerial uint32) {
	w.top = binary.BigEndian.AppendUint32(w.top[:0], classSerial)
	w.topRecord(TagUnloadClass)
}

// Frame is the body of a FRAME record. Line > 0 is a source line, -1
// unknown, -2 compiled, -3 native.
type Frame struct {
	ID          ID
	MethodID    ID
	SignatureID ID
	SourceID    ID
	ClassSerial uint32
	Line        int32
}

// Frame writes a FRAME record.
func (w *Writer) Frame(f Frame) {
	b := w.appendID(w.top[:0], f.ID)
	b = w.appendID(b, f.MethodID)
	b = w.appendID(b, f.SignatureID)
	b = w.appendID(b, f.SourceID)
	b = binary.BigEndian.AppendUint32(b, f.ClassSerial)
	w.top = binary.BigEndian.AppendUint32(b, uint32(f.Line))
	w.topRecord(TagFrame)
}

// StackFrame writes the UTF8 records a frame needs (once per text) and a
// FRAME record with a fresh frame identifier (1, 2, … as HotSpot does),
// and returns that identifier.
func (w *Writer) StackFrame(method, signature, source string, classSerial uint32, line int32) ID {
	f := Frame{ID: w.nextFrame, MethodID: w.Name(method), SignatureID: w.Name(signature),
		SourceID: w.Name(source), ClassSerial: classSerial, Line: line}
	w.nextFrame++
	w.Frame(f)
	return f.ID
}

// Trace is the body of a TRACE record; FrameIDs[0] is the innermost frame.
type Trace struct {
	Serial       uint32
	ThreadSerial uint32
	FrameIDs     []ID
}

// Trace writes a TRACE record.
func (w *Writer) Trace(t Trace) {
	b := binary.BigEndian.AppendUint32(w.top[:0], t.Serial)
	b = binary.BigEndian.AppendUint32(b, t.ThreadSerial)
	b = binary.BigEndian.AppendUint32(b, uint32(len(t.FrameIDs)))
	for _, f := range t.FrameIDs {
		b = w.appendID(b, f)
	}
	w.top = b
	w.topRecord(TagTrace)
}

// StackTrace writes a TRACE record with a fresh serial (1, 2, …) and
// returns the serial.
func (w *Writer) StackTrace(threadSerial uint32, frameIDs ...ID) uint32 {
	w.traceSerial++
	w.Trace(Trace{Serial: w.traceSerial, ThreadSerial: threadSerial, FrameIDs: frameIDs})
	return w.traceSerial
}

// AllocSites is the body of an ALLOC_SITES record.
type AllocSites struct {
	Flags              uint16
	CutoffRatio        uint32
	LiveBytes          uint32
	LiveInstances      uint32
	AllocatedBytes     uint64
	AllocatedInstances uint64
	Sites              []AllocSite
}

// AllocSite is one site of ALLOC_SITES.
type AllocSite struct {
	ArrayType      uint8 // 0 instance, 2 object array, 4-11 primitive array
	ClassSerial    uint32
	TraceSerial    uint32
	LiveBytes      uint32
	LiveInstances  uint32
	AllocBytes     uint32
	AllocInstances uint32
}

// AllocSites writes an ALLOC_SITES record.
func (w *Writer) AllocSites(a AllocSites) {
	b := binary.BigEndian.AppendUint16(w.top[:0], a.Flags)
	for _, v := range []uint32{a.CutoffRatio, a.LiveBytes, a.LiveInstances} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = binary.BigEndian.AppendUint64(b, a.AllocatedBytes)
	b = binary.BigEndian.AppendUint64(b, a.AllocatedInstances)
	b = binary.BigEndian.AppendUint32(b, uint32(len(a.Sites)))
	for _, s := range a.Sites {
		b = append(b, s.ArrayType)
		for _, v := range []uint32{s.ClassSerial, s.TraceSerial, s.LiveBytes, s.LiveInstances, s.AllocBytes, s.AllocInstances} {
			b = binary.BigEndian.AppendUint32(b, v)
		}
	}
	w.top = b
	w.topRecord(TagAllocSites)
}

// HeapSummary is the body of a HEAP_SUMMARY record.
type HeapSummary struct {
	LiveBytes          uint32
	LiveInstances      uint32
	AllocatedBytes     uint64
	AllocatedInstances uint64
}

// HeapSummary writes a HEAP_SUMMARY record.
func (w *Writer) HeapSummary(h HeapSummary) {
	b := binary.BigEndian.AppendUint32(w.top[:0], h.LiveBytes)
	b = binary.BigEndian.AppendUint32(b, h.LiveInstances)
	b = binary.BigEndian.AppendUint64(b, h.AllocatedBytes)
	w.top = binary.BigEndian.AppendUint64(b, h.AllocatedInstances)
	w.topRecord(TagHeapSummary)
}

// StartThread is the body of a START_THREAD record.
type StartThread struct {
	ThreadSerial      uint32
	ThreadID          ID
	TraceSerial       uint32
	NameID            ID
	GroupNameID       ID
	ParentGroupNameID ID
}

// StartThread writes a START_THREAD record.
func (w *Writer) StartThread(s StartThread) {
	b := binary.BigEndian.AppendUint32(w.top[:0], s.ThreadSerial)
	b = w.appendID(b, s.ThreadID)
	b = binary.BigEndian.AppendUint32(b, s.TraceSerial)
	b = w.appendID(b, s.NameID)
	b = w.appendID(b, s.GroupNameID)
	w.top = w.appendID(b, s.ParentGroupNameID)
	w.topRecord(TagStartThread)
}

// EndThread writes an END_THREAD record.
func (w *Writer) EndThread(threadSerial uint32) {
	w.top = binary.BigEndian.AppendUint32(w.top[:0], threadSerial)
	w.topRecord(TagEndThread)
}

// CPUSamples is the body of a CPU_SAMPLES record.
type CPUSamples struct {
	Total   uint32
	Samples []CPUSample
}

// CPUSample is the sample count of one trace.
type CPUSample struct {
	Count       uint32
	TraceSerial uint32
}

// CPUSamples writes a CPU_SAMPLES record.
func (w *Writer) CPUSamples(c CPUSamples) {
	b := binary.BigEndian.AppendUint32(w.top[:0], c.Total)
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.Samples)))
	for _, s := range c.Samples {
		b = binary.BigEndian.AppendUint32(b, s.Count)
		b = binary.BigEndian.AppendUint32(b, s.TraceSerial)
	}
	w.top = b
	w.topRecord(TagCPUSamples)
}

// ControlSettings writes a CONTROL_SETTINGS record: flags 0x1 allocation
// traces, 0x2 CPU sampling, and the maximum stack depth.
func (w *Writer) ControlSettings(flags uint32, maxDepth uint16) {
	b := binary.BigEndian.AppendUint32(w.top[:0], flags)
	w.top = binary.BigEndian.AppendUint16(b, maxDepth)
	w.topRecord(TagControlSettings)
}

// errNoHeapDump is the error of a heap sub-record written outside a heap
// dump.
var errNoHeapDump = errors.New("hproftest: heap sub-record outside a heap dump (call BeginHeapDump)")
