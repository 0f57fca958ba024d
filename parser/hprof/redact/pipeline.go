package redact

import (
	"bytes"
	"compress/gzip"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// batchBytes is the size past which the rewriter hands its output on to
// the goroutines that replace the values in it.
const batchBytes = 1 << 20

// gzipBlock is the most bytes one gzip member of a compressed output
// holds, as the JVM's -gz dumps say in their first member's comment.
const gzipBlock = 1 << 20

// blockSizeComment is the first member's comment of the JVM's -gz dumps,
// by which readers (hprofctl, Eclipse MAT) know they may start reading at
// any member.
var blockSizeComment = "HPROF BLOCKSIZE=" + strconv.Itoa(gzipBlock)

// opKind says what an op replaces.
type opKind uint8

const (
	opFields opKind = iota // an instance's field bytes
	opArray                // a primitive array's elements
	opChunk                // a piece of the elements of a big array
)

// op is a replacement still to be made in a batch: of the n bytes at off.
type op struct {
	off, n uint32
	cover  uint32 // opFields: the leading bytes the layout describes
	piece  uint32 // opChunk: its index in the batch's pieces
	kind   opKind
	t      hprof.Type // element type, for opArray and opChunk
	layout *layout    // opFields
}

// piece says which big array an opChunk replaces a piece of, and where
// in the array the piece starts.
type piece struct {
	big *bigDigest
	pos int64
}

// batch is a run of output bytes and the replacements still to be made
// in them. A worker makes them (and compresses out into z), then signals
// done; the writer writes the batches in order.
type batch struct {
	out    []byte
	ops    []op
	pieces []piece
	first  bool // the first batch of the output: its gzip member says the block size
	isJob  bool // out is to be read and redacted as job says
	job    job
	err    error // why the job failed
	z      bytes.Buffer
	done   chan struct{}
}

// pipeline replaces values on worker goroutines and writes the batches in
// order on one more, with at most a fixed number of batches in flight.
type pipeline struct {
	gz      bool
	work    chan *batch
	ordered chan *batch
	free    chan *batch
	stopped chan struct{} // closed when the writer is through
	failed  atomic.Bool   // set once err or jobErr is
	err     error         // the first write error; read after stopped
	jobErr  error         // the first job's error; read after stopped
	jobs    []*jobRedactor
}

// newPipeline starts workers goroutines that replace values under ks and
// the writer to w; gz compresses the output into gzip members. jobs, when
// not nil, makes each worker the redactor of the jobs it is sent.
func newPipeline(ks *keys, w io.Writer, gz bool, workers int, jobs func(*keyer) *jobRedactor) *pipeline {
	n := 2*workers + 2
	p := &pipeline{gz: gz, work: make(chan *batch, workers), ordered: make(chan *batch, n),
		free: make(chan *batch, n), stopped: make(chan struct{})}
	for range n {
		p.free <- &batch{done: make(chan struct{}, 1)}
	}
	for range workers {
		k := ks.keyer()
		var j *jobRedactor
		if jobs != nil {
			j = jobs(k)
			p.jobs = append(p.jobs, j)
		}
		go p.worker(k, j)
	}
	go p.writer(w)
	return p
}

// next is an empty batch to fill, once one is free.
func (p *pipeline) next() *batch {
	b := <-p.free
	b.out, b.ops, b.pieces, b.first, b.isJob, b.err = b.out[:0], b.ops[:0], b.pieces[:0], false, false, nil
	return b
}

// send hands a filled batch on.
func (p *pipeline) send(b *batch) {
	p.ordered <- b
	p.work <- b
}

// close waits for the batches sent to be written and returns the first
// write error.
func (p *pipeline) close() error {
	close(p.work)
	close(p.ordered)
	<-p.stopped
	return p.err
}

// worker makes the replacements of the batches it takes (reading and
// redacting the jobs with j), and compresses them for gzip output, until
// the work is closed; after an error it only signals them done.
func (p *pipeline) worker(k *keyer, j *jobRedactor) {
	var zw *gzip.Writer
	for b := range p.work {
		if !p.failed.Load() {
			if b.isJob {
				b.err = j.rewrite(b)
			} else {
				k.apply(b)
			}
			if p.gz {
				zw = compress(zw, b)
			}
		}
		b.done <- struct{}{}
	}
}

// writer writes the batches in the order they were sent, each once its
// worker is done with it, and frees them; after the first error it only
// frees them.
func (p *pipeline) writer(w io.Writer) {
	defer close(p.stopped)
	for b := range p.ordered {
		<-b.done
		if b.err != nil && !p.failed.Load() {
			p.jobErr = b.err
			p.failed.Store(true)
		}
		if !p.failed.Load() {
			out := b.out
			if p.gz {
				out = b.z.Bytes()
			}
			if _, err := w.Write(out); err != nil {
				p.err = err
				p.failed.Store(true)
			}
		}
		p.free <- b
	}
}

// compress writes b.out into b.z as gzip members of at most gzipBlock
// bytes each, at the fastest level (most of a redacted dump is
// keystream, which does not compress); zw is reused when not nil.
func compress(zw *gzip.Writer, b *batch) *gzip.Writer {
	b.z.Reset()
	for off := 0; off < len(b.out); off += gzipBlock {
		if zw == nil {
			zw, _ = gzip.NewWriterLevel(&b.z, gzip.BestSpeed) // a valid level
		} else {
			zw.Reset(&b.z)
		}
		if b.first && off == 0 {
			zw.Comment = blockSizeComment
		}
		zw.Write(b.out[off:min(off+gzipBlock, len(b.out))]) // a bytes.Buffer does not fail
		zw.Close()
	}
	return zw
}

// apply makes the replacements of a batch.
func (k *keyer) apply(b *batch) {
	for i := range b.ops {
		o := &b.ops[i]
		data := b.out[o.off : o.off+o.n]
		switch o.kind {
		case opFields:
			k.fields(o.layout, data[:o.cover])
			if int(o.cover) < len(data) {
				k.array(hprof.TypeByte, data[o.cover:])
			}
		case opArray:
			k.array(o.t, data)
		case opChunk:
			pc := b.pieces[o.piece]
			k.chunk(pc.big, o.t, pc.pos, data)
		}
	}
}
