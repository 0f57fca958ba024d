package input

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
)

// The JVM writes its -gz dumps (jcmd GC.heap_dump -gz=N,
// -XX:HeapDumpGzipLevel=N, the serviceability agent's --gz) as independent
// gzip members of at most BLOCKSIZE decompressed bytes each, the first one
// saying "HPROF BLOCKSIZE=N" in its header comment; the later headers have
// no flags and no modification time (docs/hprof.md, gzip member layout).
// parallelGzip finds where each member starts by scanning for such a
// header, inflates the members on several goroutines and delivers them in
// order. A member is delivered only when it inflated alone into exactly its
// bytes, its checksum verified; at the first one that did not (the scan
// was fooled, a member is cut, corrupt or bigger than expected, bytes
// follow the last member) the rest of the file is read as klauspost/compress/gzip
// reads it, from that member's start. So the bytes and the error are
// always those of klauspost/compress/gzip, only faster.

const (
	// blockSizeComment starts the first member's comment in the JVM's files.
	blockSizeComment = "HPROF BLOCKSIZE="
	// memberHeaderSize is the size of a gzip header without optional fields.
	memberHeaderSize = 10
	// splitRead is the most the splitter reads at once.
	splitRead = 256 << 10
	// memberSlack is the room past BLOCKSIZE of a member's output buffer.
	memberSlack = 64 << 10
	// The range BLOCKSIZE is taken in.
	minBlockSize = 64 << 10
	maxBlockSize = 4 << 20
)

// memberMagic starts the header of every member after the first: ID1, ID2,
// CM deflate, FLG 0 and MTIME 0 (XFL and OS follow, which vary).
var memberMagic = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}

// jvmBlockSize reads the header of the gzip stream at the start of br
// (without consuming it) and returns its BLOCKSIZE when the comment gives
// one, as the JVM writes it (1 MiB), kept between minBlockSize and
// maxBlockSize: the buffers are sized from it, so a file that claims more
// costs no more memory, only its members then fall back. False for any
// other gzip file.
func jvmBlockSize(br *bufio.Reader) (int, bool) {
	head, _ := br.Peek(4096)
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return 0, false
	}
	size, ok := strings.CutPrefix(zr.Comment, blockSizeComment)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(size))
	if err != nil || n <= 0 {
		return 0, false
	}
	return min(max(n, minBlockSize), maxBlockSize), true
}

// member is one region of the compressed file, meant to be one gzip
// member: raw runs from file offset stored to the next place the splitter
// found a member header (or the end of the file).
type member struct {
	stored int64
	raw    []byte
	// srcErr is the error that ended the file after raw, other than
	// io.EOF; set only on the last region.
	srcErr error
	// done is closed when a worker is through with the member: then out
	// holds its decompressed bytes and ok says whether raw was exactly one
	// valid member.
	done chan struct{}
	out  []byte
	ok   bool
}

// parallelGzip inflates the members of a JVM -gz file on workers
// goroutines; see the comment above.
type parallelGzip struct {
	src     *bufio.Reader // the compressed file from its first byte; read by the splitter only
	workers int
	maxRaw  int // a region this long without a member header is handed on as it is
	maxOut  int // a member inflating to more than this is left to the fallback
	log     *checkpointLog

	ordered   chan *member // every region, in file order
	work      chan *member // the regions to inflate
	stop      chan struct{}
	halt      sync.Once
	inflating atomic.Bool // false once the reader has fallen back
	rawPool   sync.Pool
	outPool   sync.Pool

	started  bool
	cur      *member
	pos      int
	out      int64 // decompressed bytes delivered
	fallback io.Reader
}

// newParallelGzip reads the JVM gzip file in src (from its first byte,
// nothing consumed) whose members hold up to blockSize bytes each.
func newParallelGzip(src *bufio.Reader, blockSize, workers int, log *checkpointLog) *parallelGzip {
	workers = max(workers, 1)
	z := &parallelGzip{
		src:     src,
		workers: workers,
		maxRaw:  2*blockSize + splitRead,
		maxOut:  2 * blockSize,
		log:     log,
		ordered: make(chan *member, 2*workers),
		work:    make(chan *member, 2*workers),
		stop:    make(chan struct{}),
	}
	z.inflating.Store(true)
	return z
}

// Read delivers the decompressed bytes in order; after the last, io.EOF or
// the error klauspost/compress/gzip would have returned there, and fs.ErrClosed
// after Close.
func (z *parallelGzip) Read(p []byte) (int, error) {
	select {
	case <-z.stop:
		return 0, fs.ErrClosed
	default:
	}
	if !z.started {
		z.started = true
		go z.split()
		for range z.workers {
			go z.inflate()
		}
	}
	for {
		if z.fallback != nil {
			return z.fallback.Read(p)
		}
		if z.cur != nil && z.pos < len(z.cur.out) {
			n := copy(p, z.cur.out[z.pos:])
			z.pos += n
			z.out += int64(n)
			return n, nil
		}
		if z.cur != nil {
			z.recycle(z.cur)
			z.cur = nil
		}
		m, err := z.next()
		if err != nil {
			return 0, err
		}
		if !m.ok {
			z.fallBack(m)
			continue
		}
		z.log.add(Checkpoint{Stored: m.stored, Offset: z.out})
		z.cur, z.pos = m, 0
	}
}

// next returns the next region once its worker is through with it; io.EOF
// after the last.
func (z *parallelGzip) next() (*member, error) {
	var m *member
	select {
	case next, ok := <-z.ordered:
		if !ok {
			return nil, io.EOF
		}
		m = next
	case <-z.stop:
		return nil, fs.ErrClosed
	}
	select {
	case <-m.done:
		return m, nil
	case <-z.stop:
		return nil, fs.ErrClosed
	}
}

// fallBack reads the rest of the file as klauspost/compress/gzip does, from region
// m on: the workers stop inflating, and the regions' bytes are read in
// order as one stream.
func (z *parallelGzip) fallBack(m *member) {
	z.inflating.Store(false)
	rest := &regionReader{z: z, cur: m}
	br := bufio.NewReaderSize(rest, 1<<16)
	g, err := newGzipMembers(br, func() int64 { return rest.fed }, m.stored, z.out, z.log)
	if err != nil {
		z.fallback = &failedReader{err: err}
		return
	}
	z.fallback = g
}

// close stops the splitter and the workers.
func (z *parallelGzip) close() { z.halt.Do(func() { close(z.stop) }) }

// split cuts the file into regions at each member header it finds and
// hands them to the reader (in order) and to the workers.
func (z *parallelGzip) split() {
	defer close(z.work)
	defer close(z.ordered)
	buf := z.rawBuffer()
	var off int64
	scan := memberHeaderSize
	for {
		if i := bytes.Index(buf[min(scan, len(buf)):], memberMagic); i >= 0 {
			i += scan
			next := append(z.rawBuffer(), buf[i:]...)
			if !z.emit(&member{stored: off, raw: buf[:i]}) {
				return
			}
			off += int64(i)
			buf, scan = next, memberHeaderSize
			continue
		}
		if len(buf) >= z.maxRaw {
			if !z.emit(&member{stored: off, raw: buf}) {
				return
			}
			off += int64(len(buf))
			buf, scan = z.rawBuffer(), memberHeaderSize
			continue
		}
		scan = max(memberHeaderSize, len(buf)-len(memberMagic)+1)
		if cap(buf)-len(buf) < splitRead/4 {
			buf = slices.Grow(buf, splitRead)
		}
		n, err := z.src.Read(buf[len(buf):min(cap(buf), len(buf)+splitRead)])
		buf = buf[:len(buf)+n]
		if err != nil {
			last := &member{stored: off, raw: buf}
			if err != io.EOF {
				last.srcErr = err
			}
			if len(buf) > 0 || last.srcErr != nil {
				z.emit(last)
			}
			return
		}
	}
}

// emit queues m for the reader and the workers; false once closed.
func (z *parallelGzip) emit(m *member) bool {
	m.done = make(chan struct{})
	select {
	case z.ordered <- m:
	case <-z.stop:
		return false
	}
	select {
	case z.work <- m:
		return true
	case <-z.stop:
		return false
	}
}

// inflate is a worker: it inflates each region it receives while the
// reader has not fallen back.
func (z *parallelGzip) inflate() {
	var zr gzip.Reader
	for {
		select {
		case m, ok := <-z.work:
			if !ok {
				return
			}
			if m.srcErr == nil && z.inflating.Load() {
				m.out, m.ok = inflateMember(&zr, m.raw, z.outBuffer(), z.maxOut)
			}
			close(m.done)
		case <-z.stop:
			return
		}
	}
}

// inflateMember decompresses raw, which should be exactly one gzip member,
// appending to out; ok when it was, and it inflated to at most limit bytes
// with its checksum and size verified.
func inflateMember(zr *gzip.Reader, raw, out []byte, limit int) ([]byte, bool) {
	r := bytes.NewReader(raw)
	if err := zr.Reset(r); err != nil {
		return out, false
	}
	zr.Multistream(false)
	for {
		if len(out) == cap(out) {
			if len(out) >= limit {
				return out, false
			}
			out = slices.Grow(out, min(max(len(out), 64<<10), limit-len(out)))
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		switch err {
		case nil:
		case io.EOF:
			// bytes.Reader feeds flate byte by byte: what is left
			// was not part of the member.
			return out, r.Len() == 0
		default:
			return out, false
		}
	}
}

func (z *parallelGzip) rawBuffer() []byte {
	if b, ok := z.rawPool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, splitRead)
}

func (z *parallelGzip) outBuffer() []byte {
	if b, ok := z.outPool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	// A member holds at most BLOCKSIZE bytes; with some room to spare,
	// inflating one never grows its buffer.
	return make([]byte, 0, z.maxOut/2+memberSlack)
}

// recycle returns the buffers of a member the reader is through with.
func (z *parallelGzip) recycle(m *member) {
	if raw := m.raw; raw != nil {
		z.rawPool.Put(&raw)
	}
	if out := m.out; out != nil {
		z.outPool.Put(&out)
	}
	m.raw, m.out = nil, nil
}

// regionReader reads the raw bytes of the regions in order, from cur on,
// then the error that ended the file (io.EOF at its end).
type regionReader struct {
	z   *parallelGzip
	cur *member
	pos int
	fed int64 // bytes read so far
}

func (r *regionReader) Read(p []byte) (int, error) {
	for r.pos == len(r.cur.raw) {
		if r.cur.srcErr != nil {
			return 0, r.cur.srcErr
		}
		r.z.recycle(r.cur)
		m, err := r.z.next()
		if err != nil {
			return 0, err
		}
		r.cur, r.pos = m, 0
	}
	n := copy(p, r.cur.raw[r.pos:])
	r.pos += n
	r.fed += int64(n)
	return n, nil
}

// failedReader returns err.
type failedReader struct{ err error }

func (r *failedReader) Read([]byte) (int, error) { return 0, r.err }
