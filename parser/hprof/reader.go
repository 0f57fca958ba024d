// Package hprof streams HPROF binary heap dumps ("JAVA PROFILE 1.0" to
// 1.0.3, identifiers of 4 or 8 bytes) record by record, the heap-dump
// sub-records included, in constant memory.
//
// Usage follows bufio.Scanner:
//
//	r, err := hprof.NewReader(src, hprof.Options{Name: path})
//	for r.Next() {
//		rec := r.Record()
//		...
//	}
//	err = r.Err() // errors.Is(err, hprof.ErrTruncated) for a cut-short file
//
// The bulk of a sub-record (instance field bytes, array elements) is its
// payload: it is skipped unless the caller asks for it with Payload or
// PayloadChunks before the next call to Next.
package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/hprofctl/hprofctl/parser/internal/window"
	"io"
	"strings"
	"time"
)

// ErrTruncated is wrapped by the error a Reader returns when the stream
// ends inside a record: the records before it were good.
var ErrTruncated = errors.New("dump is truncated")

// FormatError reports malformed input: the file, the stream offset
// (decompressed for compressed input) and what was expected there.
type FormatError struct {
	File   string
	Offset int64
	Msg    string
	Err    error // ErrTruncated, the source's read error, or nil
}

func (e *FormatError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
}

// Unwrap returns ErrTruncated for a cut-short file, or the error reading
// the source failed with.
func (e *FormatError) Unwrap() error { return e.Err }

// Warning is something odd but survivable the Reader met.
type Warning struct {
	Offset int64
	Msg    string
}

// Header is the file header.
type Header struct {
	Version string // "1.0", "1.0.1", "1.0.2" or "1.0.3"
	IDSize  int
	Time    time.Time
}

// Options configure a Reader.
type Options struct {
	// Name is the file name used in errors.
	Name string
	// MaxPayload bounds the bytes Payload returns in one piece and the
	// size of non-heap top-level records (default 256 MiB). Larger
	// payloads are read with PayloadChunks.
	MaxPayload int
}

const (
	defaultMaxPayload = 256 << 20
	maxWarnings       = 100
)

// Reader streams the records of one HPROF file.
type Reader struct {
	name       string
	maxPayload int

	w window.Window

	hdr    Header
	idSize int
	v10    bool // "JAVA PROFILE 1.0": signature characters in CLASS_DUMP

	rec Record
	err error

	heapEnd   int64 // stream offset where the open heap record ends; 0 = none
	heapTag   Tag
	unbounded bool // heap record whose length was 0: runs to the end of the stream
	dumps     int  // heap dumps started
	dumpOpen  bool // segments since the last HEAP_DUMP_END

	pending     int64 // unread payload bytes of the current record
	pendingElem int   // element size of that payload

	warnings     []Warning
	warningCount int
}

// NewReader reads the header from src and returns a Reader positioned
// before the first record.
func NewReader(src io.Reader, opt Options) (*Reader, error) {
	r := &Reader{w: window.New(src), name: opt.Name, maxPayload: opt.MaxPayload}
	if r.maxPayload <= 0 {
		r.maxPayload = defaultMaxPayload
	}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Reader) readHeader() error {
	r.w.Fill(64)
	b := r.w.Buf[r.w.Pos:r.w.End]
	const magic = "JAVA PROFILE 1.0"
	if !bytes.HasPrefix(b, []byte(magic)) {
		if len(b) < len(magic) && bytes.HasPrefix([]byte(magic), b) {
			return r.headerCut(0)
		}
		if len(b) > 0 && (b[0] == byte(SubTag(RootThreadObj)) || b[0] == byte(TagHeapDumpSegment)) {
			return r.errorf(0, nil, "no HPROF header: this looks like a header-less heap fragment (an hprof agent .TMP file or a JDK 21+ .pN part file), which cannot be read alone")
		}
		return r.errorf(0, nil, "expected the magic %q, found %q", magic, printable(b, 24))
	}
	if bytes.HasPrefix(b, []byte("JAVA PROFILE 1.0.1, created")) {
		return r.errorf(0, nil, "this is the hprof agent's ASCII format (java.hprof.txt), not the binary format")
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 || nul > 32 {
		if len(b) < 32 {
			return r.headerCut(0)
		}
		return r.errorf(0, nil, "HPROF magic is not NUL-terminated within 32 bytes")
	}
	if len(b) < nul+13 {
		return r.headerCut(int64(nul + 1))
	}
	r.hdr.Version = strings.TrimPrefix(string(b[:nul]), "JAVA PROFILE ")
	r.v10 = r.hdr.Version == "1.0"
	idSize := binary.BigEndian.Uint32(b[nul+1:])
	if idSize != 4 && idSize != 8 {
		return r.errorf(int64(nul+1), nil, "identifier size %d: expected 4 or 8", idSize)
	}
	r.idSize = int(idSize)
	r.hdr.IDSize = r.idSize
	ms := binary.BigEndian.Uint64(b[nul+5:])
	r.hdr.Time = time.UnixMilli(int64(ms)).UTC()
	r.w.Pos += nul + 13
	return nil
}

// headerCut reports a stream that ended, or failed, inside the header.
func (r *Reader) headerCut(off int64) error {
	if err := r.sourceError("the header"); err != nil {
		return err
	}
	return r.errorf(off, ErrTruncated, "file ends inside the HPROF header")
}

// Header returns the file header.
func (r *Reader) Header() Header { return r.hdr }

// Record returns the current record; it is overwritten by Next.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the error that stopped Next, nil at a clean end of stream.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// Offset returns the stream offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.w.Offset() }

// Warnings returns the first warnings met so far; WarningCount counts all.
func (r *Reader) Warnings() []Warning { return r.warnings }

// WarningCount is the number of warnings met so far.
func (r *Reader) WarningCount() int { return r.warningCount }

// Dumps is the number of heap dumps started so far.
func (r *Reader) Dumps() int { return r.dumps }

func (r *Reader) warn(off int64, format string, args ...any) {
	r.warningCount++
	if len(r.warnings) < maxWarnings {
		r.warnings = append(r.warnings, Warning{Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
}

func (r *Reader) errorf(off int64, wrapped error, format string, args ...any) error {
	return &FormatError{File: r.name, Offset: off, Msg: fmt.Sprintf(format, args...), Err: wrapped}
}

func printable(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.Map(func(c rune) rune {
		if c < 0x20 || c > 0x7e {
			return '.'
		}
		return c
	}, string(b))
}

// need makes n bytes available at r.w.Pos or returns a truncation error.
func (r *Reader) need(n int, what string) error {
	if r.w.End-r.w.Pos >= n {
		return nil
	}
	if got := r.w.Fill(n); got < n {
		return r.shortRead(n, got, what)
	}
	return nil
}

// sourceError returns an error naming what was being read when the source
// failed with something else than the end of the stream, else nil.
func (r *Reader) sourceError(what string) error {
	if r.w.SrcErr == nil || r.w.SrcErr == io.EOF || errors.Is(r.w.SrcErr, io.ErrUnexpectedEOF) {
		return nil
	}
	return r.errorf(r.w.Base+int64(r.w.End), r.w.SrcErr, "reading %s: %v", what, r.w.SrcErr)
}

func (r *Reader) shortRead(n, got int, what string) error {
	if err := r.sourceError(what); err != nil {
		return err
	}
	return r.errorf(r.Offset(), ErrTruncated, "%s of the %s record at offset %d needs %d bytes, the stream ends after %d", what, r.recordName(), r.rec.Offset, n, got)
}

// recordName names the record being read, for error messages.
func (r *Reader) recordName() string {
	if r.rec.Sub != 0 {
		return r.rec.Sub.String()
	}
	return r.rec.Tag.String()
}

// skip discards n bytes.
func (r *Reader) skip(n int64, what string) error {
	if avail := int64(r.w.End - r.w.Pos); n <= avail {
		r.w.Pos += int(n)
		return nil
	}
	start := r.Offset()
	n -= int64(r.w.End - r.w.Pos)
	r.w.Pos = r.w.End
	for n > 0 {
		if r.w.SrcErr != nil {
			if err := r.sourceError(what); err != nil {
				return err
			}
			return r.errorf(start, ErrTruncated, "%s of the %s record at offset %d runs %d bytes past the end of the stream", what, r.recordName(), r.rec.Offset, n)
		}
		r.w.Base += int64(r.w.End)
		r.w.Pos, r.w.End = 0, 0
		r.w.Fill(1)
		take := min(n, int64(r.w.End))
		r.w.Pos = int(take)
		n -= take
	}
	return nil
}

func (r *Reader) u2(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
func (r *Reader) u4(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func (r *Reader) u8(b []byte) uint64 { return binary.BigEndian.Uint64(b) }
func (r *Reader) id(b []byte) uint64 {
	if r.idSize == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return uint64(binary.BigEndian.Uint32(b))
}

// value reads a value of type t from b.
func (r *Reader) value(b []byte, t Type) uint64 {
	switch t.Size(r.idSize) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	default:
		return binary.BigEndian.Uint64(b)
	}
}

// Next advances to the next record. It returns false at the end of the
// stream or on an error (see Err).
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	if r.pending > 0 {
		if err := r.skip(r.pending, "payload"); err != nil {
			r.err = err
			return false
		}
		r.pending = 0
	}
	if r.heapEnd > 0 || r.unbounded {
		if r.unbounded && r.w.Fill(1) == 0 {
			r.unbounded = false
			r.err = r.sourceError("a heap sub-record")
			if r.err == nil {
				r.err = io.EOF
			}
			return false
		}
		if r.unbounded || r.Offset() < r.heapEnd {
			r.err = r.readSub()
			return r.err == nil
		}
		if r.Offset() > r.heapEnd {
			r.err = r.errorf(r.heapEnd, nil, "a heap sub-record runs %d bytes past the end of its %s record", r.Offset()-r.heapEnd, r.heapTag)
			return false
		}
		r.heapEnd = 0
		if r.heapTag == TagHeapDump {
			r.dumpOpen = false
		}
	}
	r.err = r.readTop()
	return r.err == nil
}

func (r *Reader) readTop() error {
	if got := r.w.Fill(9); got < 9 {
		if err := r.sourceError("a record header"); err != nil {
			return err
		}
		if got == 0 {
			if r.dumpOpen && r.heapTag == TagHeapDumpSegment {
				return r.errorf(r.Offset(), ErrTruncated, "the stream ends inside a segmented heap dump, before its HEAP_DUMP_END record")
			}
			return io.EOF
		}
		r.rec.Tag, r.rec.Sub, r.rec.Offset = 0, 0, r.Offset()
		return r.errorf(r.Offset(), ErrTruncated, "record header at offset %d needs 9 bytes, the stream ends after %d", r.Offset(), got)
	}
	b := r.w.Buf[r.w.Pos:]
	rec := &r.rec
	rec.Offset = r.Offset()
	rec.Tag = Tag(b[0])
	rec.Sub = 0
	rec.Time = r.u4(b[1:])
	rec.Length = r.u4(b[5:])
	r.w.Pos += 9
	length := int64(rec.Length)

	switch rec.Tag {
	case TagHeapDump, TagHeapDumpSegment:
		if rec.Tag == TagHeapDump || !r.dumpOpen {
			r.dumps++
		}
		r.dumpOpen = true
		rec.Dump = r.dumps - 1
		r.heapTag = rec.Tag
		r.heapEnd = r.Offset() + length
		if length == 0 && r.looksLikeHeapData() {
			r.warn(rec.Offset, "%s record with length 0 is followed by heap data: reading it to the end of the stream (the writer was probably killed before it set the length)", rec.Tag)
			r.heapEnd = 0
			r.unbounded = true
		}
		return nil
	case TagHeapDumpEnd:
		if !r.dumpOpen {
			r.warn(rec.Offset, "HEAP_DUMP_END without a heap dump segment before it")
		}
		r.dumpOpen = false
		return r.skip(length, "HEAP_DUMP_END body")
	}
	if known := tagNames[rec.Tag] != ""; !known || rec.Tag == TagLockStatsWait || rec.Tag == TagLockStatsHold {
		if !known {
			r.warn(rec.Offset, "unknown record %s (%d bytes) skipped", rec.Tag, length)
		}
		return r.skip(length, "body")
	}
	if length > int64(r.maxPayload) {
		return r.errorf(rec.Offset, nil, "%s record claims %d bytes, more than the %d-byte limit for such records", rec.Tag, length, r.maxPayload)
	}
	if err := r.need(int(length), "body"); err != nil {
		return err
	}
	body := r.w.Buf[r.w.Pos : r.w.Pos+int(length)]
	r.w.Pos += int(length)
	return r.parseTop(rec, body)
}

// looksLikeHeapData reports whether the next byte starts a heap sub-record
// that no top-level record tag could be mistaken for.
func (r *Reader) looksLikeHeapData() bool {
	if r.w.Fill(1) == 0 {
		return false
	}
	switch SubTag(r.w.Buf[r.w.Pos]) {
	case SubClassDump, SubInstanceDump, SubObjArrayDump, SubPrimArrayDump, RootUnknown, SubHeapDumpInfo:
		return true
	}
	return false
}

func (r *Reader) parseTop(rec *Record, b []byte) error {
	ids := r.idSize
	short := func(need int) error {
		return r.errorf(rec.Offset, nil, "%s record has %d body bytes, expected at least %d", rec.Tag, len(b), need)
	}
	switch rec.Tag {
	case TagUTF8:
		if len(b) < ids {
			return short(ids)
		}
		rec.UTF8 = UTF8{ID: r.id(b), Text: b[ids:]}
		return nil
	case TagLoadClass:
		need := 8 + 2*ids
		if len(b) < need {
			return short(need)
		}
		rec.LoadClass = LoadClass{Serial: r.u4(b), ClassID: r.id(b[4:]), TraceSerial: r.u4(b[4+ids:]), NameID: r.id(b[8+ids:])}
		return r.checkLength(rec, len(b), need)
	case TagUnloadClass, TagEndThread:
		if len(b) < 4 {
			return short(4)
		}
		if rec.Tag == TagUnloadClass {
			rec.UnloadClass = r.u4(b)
		} else {
			rec.EndThread = r.u4(b)
		}
		return r.checkLength(rec, len(b), 4)
	case TagFrame:
		need := 4*ids + 8
		if len(b) < need {
			return short(need)
		}
		rec.Frame = Frame{ID: r.id(b), MethodID: r.id(b[ids:]), SignatureID: r.id(b[2*ids:]),
			SourceID: r.id(b[3*ids:]), ClassSerial: r.u4(b[4*ids:]), Line: int32(r.u4(b[4*ids+4:]))}
		return r.checkLength(rec, len(b), need)
	case TagTrace:
		if len(b) < 12 {
			return short(12)
		}
		n := int64(r.u4(b[8:]))
		need := 12 + n*int64(ids)
		if int64(len(b)) < need {
			return r.errorf(rec.Offset, nil, "TRACE record of %d frames needs %d body bytes, has %d", n, need, len(b))
		}
		t := &rec.Trace
		t.Serial, t.ThreadSerial = r.u4(b), r.u4(b[4:])
		t.FrameIDs = t.FrameIDs[:0]
		for i := int64(0); i < n; i++ {
			t.FrameIDs = append(t.FrameIDs, r.id(b[12+i*int64(ids):]))
		}
		return r.checkLength(rec, len(b), int(need))
	case TagAllocSites:
		const fixed = 2 + 4 + 4 + 4 + 8 + 8 + 4
		if len(b) < fixed {
			return short(fixed)
		}
		a := &rec.AllocSites
		a.Flags, a.CutoffRatio, a.LiveBytes, a.LiveInstances = r.u2(b), r.u4(b[2:]), r.u4(b[6:]), r.u4(b[10:])
		a.AllocatedBytes, a.AllocatedInstances = r.u8(b[14:]), r.u8(b[22:])
		n := int64(r.u4(b[30:]))
		need := fixed + n*25
		if int64(len(b)) < need {
			return r.errorf(rec.Offset, nil, "ALLOC_SITES record of %d sites needs %d body bytes, has %d", n, need, len(b))
		}
		a.Sites = a.Sites[:0]
		for p := b[fixed:need]; len(p) >= 25; p = p[25:] {
			a.Sites = append(a.Sites, AllocSite{ArrayType: p[0], ClassSerial: r.u4(p[1:]), TraceSerial: r.u4(p[5:]),
				LiveBytes: r.u4(p[9:]), LiveInstances: r.u4(p[13:]), AllocBytes: r.u4(p[17:]), AllocInstances: r.u4(p[21:])})
		}
		return r.checkLength(rec, len(b), int(need))
	case TagHeapSummary:
		if len(b) < 24 {
			return short(24)
		}
		rec.HeapSummary = HeapSummary{LiveBytes: r.u4(b), LiveInstances: r.u4(b[4:]), AllocatedBytes: r.u8(b[8:]), AllocatedInstances: r.u8(b[16:])}
		return r.checkLength(rec, len(b), 24)
	case TagStartThread:
		need := 8 + 4*ids
		if len(b) < need {
			return short(need)
		}
		rec.StartThread = StartThread{ThreadSerial: r.u4(b), ThreadID: r.id(b[4:]), TraceSerial: r.u4(b[4+ids:]),
			NameID: r.id(b[8+ids:]), GroupNameID: r.id(b[8+2*ids:]), ParentGroupNameID: r.id(b[8+3*ids:])}
		return r.checkLength(rec, len(b), need)
	case TagCPUSamples:
		if len(b) < 8 {
			return short(8)
		}
		c := &rec.CPUSamples
		c.Total = r.u4(b)
		n := int64(r.u4(b[4:]))
		need := 8 + 8*n
		if int64(len(b)) < need {
			return r.errorf(rec.Offset, nil, "CPU_SAMPLES record of %d traces needs %d body bytes, has %d", n, need, len(b))
		}
		c.Samples = c.Samples[:0]
		for p := b[8:need]; len(p) >= 8; p = p[8:] {
			c.Samples = append(c.Samples, CPUSample{Count: r.u4(p), TraceSerial: r.u4(p[4:])})
		}
		return r.checkLength(rec, len(b), int(need))
	case TagControlSettings:
		if len(b) < 6 {
			return short(6)
		}
		rec.ControlSettings = ControlSettings{Flags: r.u4(b), MaxDepth: r.u2(b[4:])}
		return r.checkLength(rec, len(b), 6)
	}
	return nil
}

func (r *Reader) checkLength(rec *Record, have, used int) error {
	if have > used {
		r.warn(rec.Offset, "%s record has %d body bytes, only %d used", rec.Tag, have, used)
	}
	return nil
}

// heapLeft is how many bytes remain in the open heap record.
func (r *Reader) heapLeft() int64 {
	if r.unbounded {
		return 1<<62 - 1
	}
	return r.heapEnd - r.Offset()
}

func (r *Reader) readSub() error {
	rec := &r.rec
	rec.Offset = r.Offset()
	rec.Tag = r.heapTag
	rec.Dump = r.dumps - 1
	if r.w.Fill(1) == 0 {
		if err := r.sourceError("a heap sub-record"); err != nil {
			return err
		}
		return r.errorf(rec.Offset, ErrTruncated, "the stream ends %d bytes before the end its %s record declares", r.heapLeft(), r.heapTag)
	}
	sub := SubTag(r.w.Buf[r.w.Pos])
	rec.Sub = sub
	ids := r.idSize
	var fixed int
	switch sub {
	case RootUnknown, RootStickyClass, RootMonitorUsed, RootInternedString, RootFinalizing,
		RootDebugger, RootReferenceCleanup, RootVMInternal, SubUnreachable:
		fixed = ids
	case RootJNIGlobal:
		fixed = 2 * ids
	case RootJNILocal, RootJavaFrame, RootThreadObj, RootJNIMonitor:
		fixed = ids + 8
	case RootNativeStack, RootThreadBlock:
		fixed = ids + 4
	case SubInstanceDump:
		fixed = 2*ids + 8
	case SubObjArrayDump:
		fixed = 2*ids + 8
	case SubPrimArrayDump, SubPrimArrayNoData:
		fixed = ids + 9
	case SubHeapDumpInfo:
		fixed = 4 + ids
	case SubClassDump:
		return r.readClassDump()
	default:
		off := rec.Offset
		left := r.heapLeft()
		if r.unbounded {
			return r.errorf(off, nil, "unknown heap sub-record tag 0x%02X in a heap record of unknown length", uint8(sub))
		}
		r.warn(off, "unknown heap sub-record tag 0x%02X: the remaining %d bytes of this %s record were skipped", uint8(sub), left, r.heapTag)
		if err := r.skip(left, "rest of the heap record"); err != nil {
			return err
		}
		return r.afterSkippedHeap()
	}
	if int64(1+fixed) > r.heapLeft() {
		return r.errorf(rec.Offset, nil, "%s needs %d bytes, its %s record has %d left", sub, 1+fixed, r.heapTag, r.heapLeft())
	}
	if err := r.need(1+fixed, "fixed fields"); err != nil {
		return err
	}
	b := r.w.Buf[r.w.Pos+1 : r.w.Pos+1+fixed]
	r.w.Pos += 1 + fixed
	switch sub {
	case SubInstanceDump:
		in := &rec.Instance
		in.ID, in.TraceSerial, in.ClassID, in.Size = r.id(b), r.u4(b[ids:]), r.id(b[ids+4:]), r.u4(b[2*ids+4:])
		return r.setPayload(int64(in.Size), 1)
	case SubObjArrayDump:
		a := &rec.ObjArray
		a.ID, a.TraceSerial, a.Length, a.ClassID = r.id(b), r.u4(b[ids:]), r.u4(b[ids+4:]), r.id(b[ids+8:])
		if r.v10 && a.ClassID >= uint64(TypeBoolean) && a.ClassID <= uint64(TypeLong) {
			rec.Sub = SubPrimArrayDump
			rec.PrimArray = PrimArrayDump{ID: a.ID, TraceSerial: a.TraceSerial, Length: a.Length, ElemType: Type(a.ClassID)}
			es := Type(a.ClassID).Size(ids)
			return r.setPayload(int64(a.Length)*int64(es), es)
		}
		return r.setPayload(int64(a.Length)*int64(ids), ids)
	case SubPrimArrayDump, SubPrimArrayNoData:
		a := &rec.PrimArray
		a.ID, a.TraceSerial, a.Length, a.ElemType = r.id(b), r.u4(b[ids:]), r.u4(b[ids+4:]), Type(b[ids+8])
		if !a.ElemType.IsPrimitive() {
			return r.errorf(rec.Offset, nil, "%s with element type %d: expected a primitive type code 4-11", sub, a.ElemType)
		}
		if sub == SubPrimArrayNoData {
			return nil
		}
		es := a.ElemType.Size(ids)
		return r.setPayload(int64(a.Length)*int64(es), es)
	case SubHeapDumpInfo:
		rec.HeapInfo = HeapDumpInfo{HeapID: r.u4(b), NameID: r.id(b[4:])}
		return nil
	}
	root := &rec.Root
	*root = Root{Kind: sub, ID: r.id(b), FrameDepth: -1}
	switch sub {
	case RootJNIGlobal:
		root.JNIRef = r.id(b[ids:])
	case RootJNILocal, RootJavaFrame, RootJNIMonitor:
		root.ThreadSerial, root.FrameDepth = r.u4(b[ids:]), int32(r.u4(b[ids+4:]))
	case RootThreadObj:
		root.ThreadSerial, root.TraceSerial = r.u4(b[ids:]), r.u4(b[ids+4:])
	case RootNativeStack, RootThreadBlock:
		root.ThreadSerial = r.u4(b[ids:])
	}
	return nil
}

// afterSkippedHeap continues after a skipped heap record: the caller of
// readSub expects a record, so it reads the next one in its place.
func (r *Reader) afterSkippedHeap() error {
	r.heapEnd = 0
	if r.heapTag == TagHeapDump {
		r.dumpOpen = false
	}
	return r.readTop()
}

func (r *Reader) setPayload(n int64, elem int) error {
	if n > r.heapLeft() {
		return r.errorf(r.rec.Offset, nil, "%s declares %d payload bytes, its %s record has only %d left", r.rec.Sub, n, r.heapTag, r.heapLeft())
	}
	r.pending, r.pendingElem = n, elem
	return nil
}

func (r *Reader) readClassDump() error {
	rec := &r.rec
	ids := r.idSize
	fixed := 1 + 7*ids + 8 + 2
	if int64(fixed) > r.heapLeft() {
		return r.errorf(rec.Offset, nil, "CLASS_DUMP needs %d bytes, its %s record has %d left", fixed, r.heapTag, r.heapLeft())
	}
	if err := r.need(fixed, "fixed fields"); err != nil {
		return err
	}
	b := r.w.Buf[r.w.Pos+1:]
	c := &rec.Class
	c.ID, c.TraceSerial = r.id(b), r.u4(b[ids:])
	b = b[ids+4:]
	c.SuperID, c.LoaderID, c.SignersID = r.id(b), r.id(b[ids:]), r.id(b[2*ids:])
	c.ProtectionDomainID, c.Reserved1, c.Reserved2 = r.id(b[3*ids:]), r.id(b[4*ids:]), r.id(b[5*ids:])
	c.InstanceSize = r.u4(b[6*ids:])
	n := int(r.u2(b[6*ids+4:]))
	r.w.Pos += fixed
	c.Constants, c.Statics, c.Fields = c.Constants[:0], c.Statics[:0], c.Fields[:0]

	for i := 0; i < n; i++ {
		b, err := r.classBytes(3, "constant pool entry")
		if err != nil {
			return err
		}
		idx := r.u2(b)
		t, err := r.fieldType(b[2])
		if err != nil {
			return err
		}
		r.w.Pos += 3
		v, err := r.classValue(t)
		if err != nil {
			return err
		}
		c.Constants = append(c.Constants, Constant{Index: idx, Type: t, Value: v})
	}
	for part := 0; part < 2; part++ {
		b, err := r.classBytes(2, "field count")
		if err != nil {
			return err
		}
		n := int(r.u2(b))
		r.w.Pos += 2
		for i := 0; i < n; i++ {
			b, err := r.classBytes(ids+1, "field descriptor")
			if err != nil {
				return err
			}
			name := r.id(b)
			t, err := r.fieldType(b[ids])
			if err != nil {
				return err
			}
			r.w.Pos += ids + 1
			if part == 1 {
				c.Fields = append(c.Fields, Field{NameID: name, Type: t})
				continue
			}
			v, err := r.classValue(t)
			if err != nil {
				return err
			}
			c.Statics = append(c.Statics, Static{NameID: name, Type: t, Value: v})
		}
	}
	return nil
}

// classBytes makes n bytes of the CLASS_DUMP being read available.
func (r *Reader) classBytes(n int, what string) ([]byte, error) {
	if int64(n) > r.heapLeft() {
		return nil, r.errorf(r.Offset(), nil, "CLASS_DUMP at offset %d: %s runs past the end of its %s record", r.rec.Offset, what, r.heapTag)
	}
	if err := r.need(n, what); err != nil {
		return nil, err
	}
	return r.w.Buf[r.w.Pos : r.w.Pos+n], nil
}

func (r *Reader) fieldType(b byte) (Type, error) {
	t := Type(b)
	if r.v10 {
		t = TypeFromSignature(b)
	}
	if t.Size(r.idSize) == 0 {
		return 0, r.errorf(r.Offset(), nil, "CLASS_DUMP at offset %d: invalid field type 0x%02X", r.rec.Offset, b)
	}
	return t, nil
}

func (r *Reader) classValue(t Type) (uint64, error) {
	n := t.Size(r.idSize)
	b, err := r.classBytes(n, "field value")
	if err != nil {
		return 0, err
	}
	r.w.Pos += n
	return r.value(b, t), nil
}

// PayloadSize is the number of payload bytes of the current record that
// are still unread.
func (r *Reader) PayloadSize() int64 { return r.pending }

// Payload returns the whole payload of the current sub-record (instance
// field bytes, array elements); the slice is valid until Next. Payloads
// larger than Options.MaxPayload must be read with PayloadChunks.
func (r *Reader) Payload() ([]byte, error) {
	n := r.pending
	if n > int64(r.maxPayload) {
		return nil, r.errorf(r.rec.Offset, nil, "%s payload of %d bytes exceeds the %d-byte limit", r.rec.Sub, n, r.maxPayload)
	}
	if err := r.need(int(n), "payload"); err != nil {
		r.err = err
		return nil, err
	}
	b := r.w.Buf[r.w.Pos : r.w.Pos+int(n)]
	r.w.Pos += int(n)
	r.pending = 0
	return b, nil
}

// PayloadChunks hands the payload of the current sub-record to fn in
// pieces, each a whole number of elements.
func (r *Reader) PayloadChunks(fn func(chunk []byte) error) error {
	elem := max(r.pendingElem, 1)
	for r.pending > 0 {
		want := int(min(r.pending, int64(len(r.w.Buf)/2)))
		want -= want % elem
		if want == 0 {
			want = int(r.pending)
		}
		got := r.w.End - r.w.Pos
		if got < want {
			got = r.w.Fill(want)
		}
		if got < elem {
			err := r.shortRead(int(min(r.pending, int64(want))), got, "payload")
			r.err = err
			return err
		}
		take := min(got, want)
		take -= take % elem
		chunk := r.w.Buf[r.w.Pos : r.w.Pos+take]
		r.w.Pos += take
		r.pending -= int64(take)
		if err := fn(chunk); err != nil {
			return err
		}
	}
	return nil
}

// ID decodes an identifier from the start of b, as the file's id size
// says (for payload bytes).
func (r *Reader) ID(b []byte) uint64 { return r.id(b) }

// IDSize is the identifier size of the file.
func (r *Reader) IDSize() int { return r.idSize }
