package redact

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// The direct path redacts a dump that can be read at any offset (a plain
// file, or bytes in memory) without streaming its heap through one
// reader. The top-level records but the heap records are read as a
// stream, as the streaming path reads them; the heap records are noted
// (heapSpan) and read at their offsets on every core: in the first pass
// for their classes, heap names and big arrays, in the second as jobs of
// about jobBytes, each read once straight into the batch it is written
// from, its values replaced in place (a heap record's output has its
// input's bytes but for the values). What the direct path does not
// know how to read the same way as the streaming path (a compressed or
// cut dump, unknown records, a heap record of no length, any error or
// oddity of its first pass) it leaves, before writing anything, to the
// streaming path, which reads it or says what is wrong with it.

// errNotDirect is the direct path leaving a dump to the streaming path.
var errNotDirect = errors.New("left to the streaming path")

// errChanged is the error of a second pass that did not find what the
// first one did.
var errChanged = errors.New("the input changed between the two reads")

// jobBytes is the size past which the heap records are cut into jobs for
// the second pass, between sub-records or inside the elements of a big
// array.
const jobBytes = 1 << 20

// heapSpan is one HEAP_DUMP or HEAP_DUMP_SEGMENT record of the dump.
type heapSpan struct {
	off, end int64 // file offsets of its record header and past its body
	at       int64 // the offset in the top-level stream of the record after it
	cuts     []cut // where its second pass is cut into jobs, after off
}

// cut is where a job of the second pass starts: at a sub-record, or
// inside the elements of an array.
type cut struct {
	off int64
	in  elements // the elements off lies in; in.end is 0 at a sub-record
}

// elements are the elements of an array that a job starts inside of.
type elements struct {
	rec        int64      // file offset of the array's record (the key of scan.big)
	start, end int64      // file offsets of the elements
	t          hprof.Type // hprof.TypeObject for an object array, copied as it is
}

// topLevelTags are the top-level records the direct path reads; any other
// record leaves the dump to the streaming path.
var topLevelTags = map[hprof.Tag]bool{
	hprof.TagUTF8: true, hprof.TagLoadClass: true, hprof.TagUnloadClass: true, hprof.TagFrame: true,
	hprof.TagTrace: true, hprof.TagAllocSites: true, hprof.TagHeapSummary: true, hprof.TagStartThread: true,
	hprof.TagEndThread: true, hprof.TagCPUSamples: true, hprof.TagControlSettings: true, hprof.TagHeapDumpEnd: true,
}

// topStream hands on the dump's header and its top-level records but the
// heap records, whose places it notes (or, in the second pass, checks
// against the first pass's).
type topStream struct {
	src      io.ReaderAt
	size     int64
	pos      int64 // file offset of the next byte to hand on
	end      int64 // file offset where the record being handed on ends
	out      int64 // bytes handed on
	buf      []byte
	bufOff   int64 // file offset of buf[0]
	block    int   // bytes to read ahead when buf runs out
	segments bool  // a segmented heap dump is open
	spans    []heapSpan
	expect   []heapSpan // the first pass's spans, in the second
}

// newTopStream starts a topStream on a dump whose header takes the
// first header bytes.
func newTopStream(src io.ReaderAt, size int64, header int, expect []heapSpan) *topStream {
	return &topStream{src: src, size: size, end: int64(header), block: 4 << 10, expect: expect}
}

// headerLength is the length of the dump's header, read from src;
// errNotDirect when src holds no HPROF header (a compressed file).
func headerLength(src io.ReaderAt, size int64) (int, error) {
	var b [64]byte
	n, err := src.ReadAt(b[:min(size, int64(len(b)))], 0)
	if n < int(min(size, int64(len(b)))) {
		return 0, err
	}
	nul := bytes.IndexByte(b[:n], 0)
	if !bytes.HasPrefix(b[:n], []byte("JAVA PROFILE 1.0")) || nul < 0 || n < nul+13 {
		return 0, errNotDirect
	}
	return nul + 13, nil
}

// Read hands on the next bytes of the header and the top-level records.
func (t *topStream) Read(p []byte) (int, error) {
	for t.pos == t.end {
		if t.pos == t.size {
			switch {
			case len(t.expect) > 0:
				return 0, errChanged
			case t.segments:
				return 0, errNotDirect // no HEAP_DUMP_END: the streaming path says so
			}
			return 0, io.EOF
		}
		h, err := t.bytes(t.pos, 9)
		if err != nil {
			return 0, err
		}
		tag, next := hprof.Tag(h[0]), t.pos+9+int64(binary.BigEndian.Uint32(h[5:]))
		if next > t.size {
			return 0, errNotDirect
		}
		switch {
		case tag == hprof.TagHeapDump || tag == hprof.TagHeapDumpSegment:
			if err := t.heap(next); err != nil {
				return 0, err
			}
			t.segments = tag == hprof.TagHeapDumpSegment
			t.block = 4 << 10
			continue
		case tag == hprof.TagHeapDumpEnd:
			t.segments = false
		case !topLevelTags[tag]:
			return 0, errNotDirect
		}
		t.end = next
	}
	b, err := t.bytes(t.pos, int(min(int64(len(p)), t.end-t.pos)))
	if err != nil {
		return 0, err
	}
	n := copy(p, b)
	t.pos += int64(n)
	t.out += int64(n)
	return n, nil
}

// heap notes the heap record at t.pos, which ends at end, and skips it.
func (t *topStream) heap(end int64) error {
	sp := heapSpan{off: t.pos, end: end, at: t.out}
	switch {
	case end == t.pos+9:
		return errNotDirect // a heap record of no length (perhaps one of unknown length)
	case t.expect == nil:
		t.spans = append(t.spans, sp)
	case len(t.expect) == 0 || t.expect[0].off != sp.off || t.expect[0].end != sp.end || t.expect[0].at != sp.at:
		return errChanged
	default:
		t.expect = t.expect[1:]
	}
	t.pos, t.end = end, end
	return nil
}

// bytes returns the n bytes of the file at off, read ahead in blocks that
// grow while the records are small.
func (t *topStream) bytes(off int64, n int) ([]byte, error) {
	if off < t.bufOff || off+int64(n) > t.bufOff+int64(len(t.buf)) {
		want := min(max(n, t.block), int(t.size-off))
		t.block = min(2*t.block, 1<<20)
		if cap(t.buf) < want {
			t.buf = make([]byte, want)
		}
		t.buf = t.buf[:want]
		got, err := t.src.ReadAt(t.buf, off)
		t.buf, t.bufOff = t.buf[:got], off
		if got < n {
			if err == nil || err == io.EOF {
				err = errNotDirect
			}
			return nil, err
		}
	}
	return t.buf[off-t.bufOff : off-t.bufOff+int64(n)], nil
}

// directScan is the direct path's first pass: the top-level records
// through a topStream, then the heap records on workers goroutines
// (scanHeap). It returns the scan, the heap records with their cuts, and
// the CLASS_DUMP records by file offset; errNotDirect when the streaming
// path is to read the dump.
func directScan(src *dumpSource, name string, ks *keys, workers int) (*scan, []heapSpan, map[int64]*hprof.ClassDump, error) {
	hl, err := headerLength(src, src.size)
	if err != nil {
		return nil, nil, nil, err
	}
	ts := newTopStream(src, src.size, hl, nil)
	r, err := hprof.NewReader(ts, hprof.Options{Name: name})
	if err != nil || r.Header().Version == "1.0" {
		return nil, nil, nil, errNotDirect
	}
	s, err := firstPass(r, ks.keyer())
	if err != nil {
		return nil, nil, nil, errNotDirect
	}
	classDumps, err := scanHeap(src, s, ts.spans, ks, workers)
	if err != nil {
		return nil, nil, nil, errNotDirect
	}
	return s, ts.spans, classDumps, nil
}

// shareSpans cuts spans into at most n runs of about equal bytes.
func shareSpans(spans []heapSpan, n int) [][]heapSpan {
	var total int64
	for _, sp := range spans {
		total += sp.end - sp.off
	}
	var runs [][]heapSpan
	var sum, from int64
	for i, sp := range spans {
		sum += sp.end - sp.off
		if sum*int64(n) >= total*int64(len(runs)+1) || i == len(spans)-1 {
			runs = append(runs, spans[from:i+1])
			from = int64(i + 1)
		}
	}
	return runs
}

// cloneClass is a copy of c that shares nothing with it.
func cloneClass(c *hprof.ClassDump) *hprof.ClassDump {
	d := *c
	d.Constants, d.Statics, d.Fields = slices.Clone(c.Constants), slices.Clone(c.Statics), slices.Clone(c.Fields)
	return &d
}

// cutter cuts one heap record into jobs of about jobBytes.
type cutter struct {
	last int64 // where the last job starts
	cuts []cut
}

// at cuts before the sub-record at off when the job has grown enough.
func (c *cutter) at(off int64) {
	if off-c.last >= jobBytes {
		c.cuts = append(c.cuts, cut{off: off})
		c.last = off
	}
}

// inside cuts the elements e, of es bytes each, every jobBytes.
func (c *cutter) inside(e elements, es int64) {
	for {
		x := max(c.last+jobBytes, e.start)
		x = e.start + (x-e.start+es-1)/es*es
		if x >= e.end {
			return
		}
		c.cuts = append(c.cuts, cut{off: x, in: e})
		c.last = x
	}
}
