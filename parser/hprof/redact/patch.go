package redact

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// job is a piece of a heap record that the direct path's second pass
// reads into a batch and redacts in place.
type job struct {
	off, end int64    // file offsets of the piece
	header   bool     // off is the heap record's header
	in       elements // the elements off lies in; in.end is 0 at a sub-record
}

// jobRedactor redacts jobs on one of the pipeline's workers.
type jobRedactor struct {
	*heapRedactor
	name       string
	src        io.ReaderAt
	classDumps map[int64]*hprof.ClassDump // the first pass's, by file offset
	enc        enc
}

// heapJobs hands the heap record sp on as jobs, cut where the first pass
// cut it.
func (rw *rewriter) heapJobs(sp *heapSpan) error {
	rw.ship()
	start, in := sp.off, elements{}
	for i := 0; i <= len(sp.cuts); i++ {
		end, next := sp.end, elements{}
		if i < len(sp.cuts) {
			end, next = sp.cuts[i].off, sp.cuts[i].in
		}
		rw.cur.job, rw.cur.isJob = job{off: start, end: end, header: start == sp.off, in: in}, true
		rw.written += end - start
		rw.pipe.send(rw.cur)
		rw.cur = rw.pipe.next()
		rw.e.b, rw.ops = rw.cur.out, rw.cur.ops
		if rw.pipe.failed.Load() {
			return errWriteFailed
		}
		start, in = end, next
	}
	return nil
}

// rewrite reads the job of b into b.out and replaces its values.
func (j *jobRedactor) rewrite(b *batch) error {
	jb := &b.job
	n := int(jb.end - jb.off)
	b.out = slices.Grow(b.out[:0], n)[:n]
	if got, err := j.src.ReadAt(b.out, jb.off); got < n {
		if err == nil || err == io.EOF {
			return j.changed(jb.off + int64(got))
		}
		return fmt.Errorf("%s: %w", j.name, err)
	}
	out, p := b.out, 0
	if jb.header {
		p = 9
	}
	if in := jb.in; in.end > 0 {
		q := int(min(in.end, jb.end) - jb.off)
		if in.t != hprof.TypeObject && q > p {
			d := j.s.big[in.rec]
			if d == nil {
				return j.changed(in.rec)
			}
			j.k.chunk(d, in.t, jb.off+int64(p)-in.start, out[p:q])
		}
		p = q
	}
	for p < len(out) {
		m, err := j.sub(out[p:], jb.off+int64(p))
		if err != nil {
			return err
		}
		p += m
	}
	return nil
}

// changed is the error for a second pass that did not find at off what
// the first pass found.
func (j *jobRedactor) changed(off int64) error {
	return &hprof.FormatError{File: j.name, Offset: off, Msg: errChanged.Error(), Err: errChanged}
}

// sub replaces the values of the sub-record at the start of b, at file
// offset off, and returns its length in b (an array's elements may run
// on into the next jobs).
func (j *jobRedactor) sub(b []byte, off int64) (int, error) {
	ids := j.s.header.IDSize
	sub := hprof.SubTag(b[0])
	if sub == hprof.SubClassDump {
		return j.classDump(b, off)
	}
	fixed := subLength(sub, ids)
	if fixed < 0 || fixed > len(b) {
		return 0, j.changed(off)
	}
	id := func(p int) uint64 {
		if ids == 4 {
			return uint64(binary.BigEndian.Uint32(b[p:]))
		}
		return binary.BigEndian.Uint64(b[p:])
	}
	switch sub {
	case hprof.SubInstanceDump:
		size := int(binary.BigEndian.Uint32(b[1+2*ids+4:]))
		if fixed+size > len(b) {
			return 0, j.changed(off)
		}
		data := b[fixed : fixed+size]
		l, cover := j.instanceLayout(id(1+ids+4), size)
		j.k.fields(l, data[:cover])
		if cover < size {
			j.k.array(hprof.TypeByte, data[cover:])
		}
		return fixed + size, nil
	case hprof.SubObjArrayDump:
		length := int64(binary.BigEndian.Uint32(b[1+ids+4:]))
		return int(min(int64(fixed)+length*int64(ids), int64(len(b)))), nil
	case hprof.SubPrimArrayDump:
		t := hprof.Type(b[1+ids+8])
		if !t.IsPrimitive() {
			return 0, j.changed(off)
		}
		n := int64(binary.BigEndian.Uint32(b[1+ids+4:])) * int64(t.Size(ids))
		j.arrays[t].add(int(n))
		if n > bigArray {
			d := j.s.big[off]
			if d == nil {
				return 0, j.changed(off)
			}
			m := int(min(int64(fixed)+n, int64(len(b))))
			if m > fixed {
				j.k.chunk(d, t, 0, b[fixed:m])
			}
			return m, nil
		}
		if int64(fixed)+n > int64(len(b)) {
			return 0, j.changed(off)
		}
		j.k.array(t, b[fixed:fixed+int(n)])
		return fixed + int(n), nil
	}
	return fixed, nil
}

// classDump replaces the CLASS_DUMP at the start of b, at file offset
// off, by the first pass's with its values replaced, once it found the
// first pass's there.
func (j *jobRedactor) classDump(b []byte, off int64) (int, error) {
	c := j.classDumps[off]
	if c == nil {
		return 0, j.changed(off)
	}
	j.enc.ids = j.s.header.IDSize
	j.enc.b = j.enc.b[:0]
	j.enc.classDump(c)
	n := len(j.enc.b)
	if n > len(b) || !bytes.Equal(j.enc.b, b[:n]) {
		return 0, j.changed(off)
	}
	d := cloneClass(c)
	j.redactClass(d)
	j.enc.b = j.enc.b[:0]
	j.enc.classDump(d)
	if len(j.enc.b) != n {
		return 0, j.changed(off)
	}
	copy(b, j.enc.b)
	return n, nil
}

// subLength is the length of a heap sub-record but its payload, tag
// included; -1 for a tag the Reader does not know (a CLASS_DUMP's is
// its own).
func subLength(sub hprof.SubTag, ids int) int {
	switch sub {
	case hprof.RootUnknown, hprof.RootStickyClass, hprof.RootMonitorUsed, hprof.RootInternedString, hprof.RootFinalizing,
		hprof.RootDebugger, hprof.RootReferenceCleanup, hprof.RootVMInternal, hprof.SubUnreachable:
		return 1 + ids
	case hprof.RootJNIGlobal:
		return 1 + 2*ids
	case hprof.RootJNILocal, hprof.RootJavaFrame, hprof.RootThreadObj, hprof.RootJNIMonitor:
		return 1 + ids + 8
	case hprof.RootNativeStack, hprof.RootThreadBlock:
		return 1 + ids + 4
	case hprof.SubInstanceDump, hprof.SubObjArrayDump:
		return 1 + 2*ids + 8
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
		return 1 + ids + 9
	case hprof.SubHeapDumpInfo:
		return 1 + 4 + ids
	}
	return -1
}
