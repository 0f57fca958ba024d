package hproftest

import (
	"bytes"
	"compress/gzip"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// JVMGzipBlock is the size of the dump bytes in each gzip member of a
// JVMGzipWriter's output, as the JVM's -gz dumps have it (1 MiB).
const JVMGzipBlock = 1 << 20

// JVMGzipWriter compresses what is written to it as the JVM writes its
// -gz heap dumps (jcmd GC.heap_dump -gz=N): a gzip member for every
// JVMGzipBlock bytes, each complete on its own, the first one's header
// comment saying "HPROF BLOCKSIZE=1048576" and the others' headers
// without flags or time. The members are compressed on every processor
// and written in order, so a benchmark's dump of many GiB takes about
// half the disk (the realistic writer's random array contents keep it
// from shrinking more) at little more time than a plain one.
type JVMGzipWriter struct {
	dst     io.Writer
	level   int
	pending []byte
	first   bool
	jobs    chan *member
	order   chan *member
	wrote   chan error // the writing goroutine's first error, once it ends
	failed  atomic.Pointer[error]
	workers sync.WaitGroup
}

// member is one block of bytes on its way to dst.
type member struct {
	data  []byte
	first bool
	z     bytes.Buffer
	err   error
	done  chan struct{}
}

// NewJVMGzipWriter returns a writer that compresses into dst at the given
// gzip level. Close writes the last member and must be called.
func NewJVMGzipWriter(dst io.Writer, level int) *JVMGzipWriter {
	workers := runtime.GOMAXPROCS(0)
	w := &JVMGzipWriter{
		dst:   dst,
		level: level,
		first: true,
		jobs:  make(chan *member, workers),
		order: make(chan *member, 2*workers),
		wrote: make(chan error, 1),
	}
	for range workers {
		w.workers.Add(1)
		go func() {
			defer w.workers.Done()
			for m := range w.jobs {
				m.err = m.compress(level)
				close(m.done)
			}
		}()
	}
	go w.write()
	return w
}

// compress writes m's bytes as one gzip member into m.z.
func (m *member) compress(level int) error {
	zw, err := gzip.NewWriterLevel(&m.z, level)
	if err != nil {
		return err
	}
	if m.first {
		zw.Comment = "HPROF BLOCKSIZE=" + strconv.Itoa(JVMGzipBlock)
	}
	if _, err := zw.Write(m.data); err != nil {
		return err
	}
	return zw.Close()
}

// write writes the members to dst in order as they are done, and keeps
// on draining them after an error so that no worker blocks.
func (w *JVMGzipWriter) write() {
	var err error
	for m := range w.order {
		<-m.done
		if err == nil {
			err = m.err
		}
		if err == nil {
			_, err = w.dst.Write(m.z.Bytes())
		}
		if err != nil {
			w.failed.CompareAndSwap(nil, &err)
		}
	}
	w.wrote <- err
}

// Write buffers p and hands every full block to the compressing
// goroutines. Once compressing or writing a member failed, it returns
// that error.
func (w *JVMGzipWriter) Write(p []byte) (int, error) {
	if err := w.failed.Load(); err != nil {
		return 0, *err
	}
	n := len(p)
	for len(p) > 0 {
		if w.pending == nil {
			w.pending = make([]byte, 0, JVMGzipBlock)
		}
		k := min(len(p), JVMGzipBlock-len(w.pending))
		w.pending = append(w.pending, p[:k]...)
		p = p[k:]
		if len(w.pending) == JVMGzipBlock {
			w.submit()
		}
	}
	return n, nil
}

// submit queues the pending bytes as a member.
func (w *JVMGzipWriter) submit() {
	m := &member{data: w.pending, first: w.first, done: make(chan struct{})}
	w.pending, w.first = nil, false
	w.order <- m
	w.jobs <- m
}

// Close writes the last member (an empty one when nothing was written)
// and returns the first error compressing or writing met.
func (w *JVMGzipWriter) Close() error {
	if len(w.pending) > 0 || w.first {
		w.submit()
	}
	close(w.jobs)
	close(w.order)
	w.workers.Wait()
	return <-w.wrote
}
