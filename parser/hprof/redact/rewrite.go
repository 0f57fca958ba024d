package redact

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// rewriter is the second pass: it writes each record it reads into
// batches, whose values the pipeline's workers replace.
type rewriter struct {
	r    *hprof.Reader
	name string
	w    io.Writer
	gz   bool
	pipe *pipeline
	cur  *batch // the batch being filled: e.b and ops are its out and ops
	e    enc
	ops  []op
	refs map[uint64]bool // string ids records refer to
	sum  *Summary
	// heapRedactor replaces the statics, constants and names here, and
	// counts what the batches' workers replace.
	*heapRedactor

	direct *jobRedactor // for the jobs of the direct path; nil on the streaming path
	spans  []heapSpan   // the direct path's heap records still to hand on as jobs

	written   int64 // bytes of the batches handed on
	next      int64 // input offset where the next top-level record should start
	heap      *hprof.Record
	heapEnd   int64 // output offset where the open heap record ends
	unbounded bool  // the open heap record has no length
}

func newRewriter(k *keyer, s *scan, p *plan, w io.Writer, gz bool, name string) *rewriter {
	return &rewriter{name: name, w: w, gz: gz, refs: s.referenced(), heapRedactor: newHeapRedactor(k, s, p, nil),
		e:   enc{ids: s.header.IDSize},
		sum: &Summary{Arrays: map[string]*Count{}, Kept: map[string]int64{}}}
}

// run writes the header and every record, replacing the values on
// GOMAXPROCS workers.
func (rw *rewriter) run(r *hprof.Reader) (*scan, error) {
	var jobs func(*keyer) *jobRedactor
	if rw.direct != nil {
		jobs = func(k *keyer) *jobRedactor {
			j := *rw.direct
			j.heapRedactor = newHeapRedactor(k, rw.s, rw.p, rw.names)
			return &j
		}
	}
	rw.pipe = newPipeline(rw.k.keys, rw.w, rw.gz, runtime.GOMAXPROCS(0), jobs)
	rw.cur = rw.pipe.next()
	rw.cur.first = true
	rw.e.b, rw.ops = rw.cur.out, rw.cur.ops
	err := rw.records(r)
	if err == nil {
		rw.ship()
	}
	if werr := rw.pipe.close(); werr != nil {
		return nil, fmt.Errorf("writing the redacted dump: %w", werr)
	}
	if rw.pipe.jobErr != nil {
		return nil, rw.pipe.jobErr
	}
	if err != nil {
		return nil, err
	}
	rw.sum.Read, rw.sum.Written = r.Offset(), rw.written
	rw.tally.addTo(rw.sum, rw.p)
	for _, j := range rw.pipe.jobs {
		j.tally.addTo(rw.sum, rw.p)
	}
	return nil, nil
}

// records writes the header and every record into the batches.
func (rw *rewriter) records(r *hprof.Reader) error {
	rw.r = r
	rw.header()
	rw.next = r.Offset()
	if rw.names != nil {
		rw.names.writeStrings(rw)
	}
	for r.Next() {
		if err := rw.spansBefore(r.Record().Offset); err != nil {
			return err
		}
		if err := rw.record(r.Record()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	if err := rw.spansBefore(math.MaxInt64); err != nil {
		return err
	}
	return rw.closeHeap(r.Offset())
}

// spansBefore hands on the direct path's heap records that come before
// offset off of the top-level stream, as jobs.
func (rw *rewriter) spansBefore(off int64) error {
	for len(rw.spans) > 0 && rw.spans[0].at <= off {
		if err := rw.heapJobs(&rw.spans[0]); err != nil {
			return err
		}
		rw.spans = rw.spans[1:]
	}
	return nil
}

func (rw *rewriter) header() {
	h := rw.s.header
	rw.e.b = append(rw.e.b, "JAVA PROFILE "+h.Version...)
	rw.e.u1(0)
	rw.e.u4(uint32(h.IDSize))
	rw.e.u8(uint64(h.Time.UnixMilli()))
}

// flush hands the batch on once it is full, and fails once the writing
// did.
func (rw *rewriter) flush() error {
	if len(rw.e.b) < batchBytes {
		return nil
	}
	rw.ship()
	if rw.pipe.failed.Load() {
		return errWriteFailed
	}
	return nil
}

// errWriteFailed stops the reading once the writing failed; the writer's
// error is the one reported.
var errWriteFailed = errors.New("the writing failed")

// ship hands the batch on and starts the next.
func (rw *rewriter) ship() {
	if len(rw.e.b) == 0 {
		return
	}
	rw.cur.out, rw.cur.ops = rw.e.b, rw.ops
	rw.written += int64(len(rw.e.b))
	rw.pipe.send(rw.cur)
	rw.cur = rw.pipe.next()
	rw.e.b, rw.ops = rw.cur.out, rw.cur.ops
}

// produced is the output offset of the next byte.
func (rw *rewriter) produced() int64 { return rw.written + int64(len(rw.e.b)) }

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
		rw.heap, rw.heapEnd, rw.unbounded = rec, rw.produced()+int64(rec.Length), rec.Length == 0
		return rw.flush()
	case hprof.TagUTF8:
		rw.utf8(rec)
		return rw.flush()
	}
	start := rw.e.top(rec)
	if rw.names != nil {
		rw.names.rename(rec)
	}
	rw.e.topBody(rec)
	rw.e.finish(start)
	return rw.flush()
}

// closeHeap checks, before the record at offset off, that the open heap
// record was written whole.
func (rw *rewriter) closeHeap(off int64) error {
	if rw.heap == nil {
		return nil
	}
	rec := rw.heap
	rw.heap = nil
	if left := rw.heapEnd - rw.produced(); left > 0 && !rw.unbounded {
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
}
