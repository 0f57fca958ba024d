package redact

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// rewriter is the second pass: it writes each record it reads, redacted.
type rewriter struct {
	r     *hprof.Reader
	name  string
	out   *counter
	w     *bufio.Writer
	e     enc
	k     *keyer
	s     *scan
	p     *plan
	names *renamer
	refs  map[uint64]bool // string ids records refer to
	sum   *Summary
	data  []byte // scratch for a payload

	next     int64 // input offset where the next top-level record should start
	heap     *hprof.Record
	heapLeft int64 // bytes of the open heap record not yet written; -1 unbounded
}

func newRewriter(k *keyer, s *scan, p *plan, w io.Writer, name string) *rewriter {
	out := &counter{w: w}
	return &rewriter{name: name, out: out, w: bufio.NewWriterSize(out, 1<<20), k: k, s: s, p: p, refs: s.referenced(),
		e:   enc{ids: s.header.IDSize},
		sum: &Summary{Arrays: map[string]*Count{}, Kept: map[string]int64{}}}
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// run writes the header and every record.
func (rw *rewriter) run(r *hprof.Reader) (*scan, error) {
	rw.r = r
	rw.header()
	rw.next = r.Offset()
	if rw.names != nil {
		rw.names.writeStrings(rw)
	}
	for r.Next() {
		if err := rw.record(r.Record()); err != nil {
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := rw.closeHeap(r.Offset()); err != nil {
		return nil, err
	}
	if err := rw.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the redacted dump: %w", err)
	}
	rw.sum.Read, rw.sum.Written = r.Offset(), rw.out.n
	return nil, nil
}

func (rw *rewriter) header() {
	h := rw.s.header
	rw.e.b = append(rw.e.b[:0], "JAVA PROFILE "+h.Version...)
	rw.e.u1(0)
	rw.e.u4(uint32(h.IDSize))
	rw.e.u8(uint64(h.Time.UnixMilli()))
	rw.flush()
}

// flush writes the encoded bytes; write errors surface at the end, from
// the bufio.Writer.
func (rw *rewriter) flush() {
	rw.w.Write(rw.e.b)
	if rw.heapLeft > 0 {
		rw.heapLeft -= int64(len(rw.e.b))
	}
	rw.e.b = rw.e.b[:0]
}

// writePayload writes payload bytes of the current heap sub-record.
func (rw *rewriter) writePayload(b []byte) {
	rw.w.Write(b)
	if rw.heapLeft > 0 {
		rw.heapLeft -= int64(len(b))
	}
}

func (rw *rewriter) record(rec *hprof.Record) error {
	if rec.Sub != 0 {
		return rw.sub(rec)
	}
	if err := rw.closeHeap(rec.Offset); err != nil {
		return err
	}
	if rec.Offset > rw.next {
		rw.sum.DroppedBytes += rec.Offset - rw.next
	}
	rw.next = rec.Offset + 9 + int64(rec.Length)
	switch rec.Tag {
	case hprof.TagHeapDump, hprof.TagHeapDumpSegment:
		start := rw.e.top(rec)
		binary.BigEndian.PutUint32(rw.e.b[start-4:], rec.Length)
		rw.flush()
		rw.heap, rw.heapLeft = rec, int64(rec.Length)
		if rec.Length == 0 {
			rw.heapLeft = -1
		}
		return nil
	case hprof.TagUTF8:
		rw.utf8(rec)
		return nil
	}
	start := rw.e.top(rec)
	if rw.names != nil {
		rw.names.rename(rec)
	}
	rw.e.topBody(rec)
	rw.e.finish(start)
	rw.flush()
	return nil
}

// closeHeap checks, before the record at offset off, that the open heap
// record was written whole.
func (rw *rewriter) closeHeap(off int64) error {
	if rw.heap == nil {
		return nil
	}
	left := rw.heapLeft
	rec := rw.heap
	rw.heap, rw.heapLeft = nil, 0
	if left > 0 {
		return &hprof.FormatError{File: rw.name, Offset: off, Err: errHeapCut,
			Msg: fmt.Sprintf("the %s record at offset %d has %d bytes the reader skipped (an unknown sub-record): redact cannot vouch for them", rec.Tag, rec.Offset, left)}
	}
	return nil
}

// utf8 writes a string record, a thread's name replaced; a string no
// record refers to is left out.
func (rw *rewriter) utf8(rec *hprof.Record) {
	u := rec.UTF8
	text := u.Text
	switch {
	case !rw.refs[u.ID]:
		rw.sum.UnusedStrings.add(len(text))
		return
	case rw.s.threadStr[u.ID]:
		rw.sum.ThreadNames.add(len(text))
		text = []byte("thread-" + hex.EncodeToString(rw.k.digest(0, text)[:6]))
	case rw.names != nil:
		var keep bool
		if text, keep = rw.names.utf8(u.ID, text); !keep {
			return
		}
	}
	start := rw.e.top(rec)
	rw.e.id(u.ID)
	rw.e.b = append(rw.e.b, text...)
	rw.e.finish(start)
	rw.flush()
}
