package input

import (
	"io"
	"io/fs"
	"sync"
)

// The buffers a decompressing goroutine fills: pipeChunkSize bytes each,
// at most pipeDepth filled ones waiting for the reader.
const (
	pipeChunkSize = 256 << 10
	pipeDepth     = 4
)

// pipe reads src on a goroutine of its own, started by the first Read, and
// delivers what it read in order, then src's error: the same bytes and
// error as reading src directly, with decompression running beside the
// parsing. It holds at most pipeDepth+1 chunks.
type pipe struct {
	src    io.Reader // read by the goroutine only
	filled chan *pipeChunk
	free   chan *pipeChunk
	stop   chan struct{}
	halt   sync.Once

	started bool
	cur     *pipeChunk
	pos     int
}

// pipeChunk is a run of bytes read from the source; err, on the last
// chunk, is the error that ended the source.
type pipeChunk struct {
	data []byte
	err  error
}

func newPipe(src io.Reader) *pipe {
	p := &pipe{
		src:    src,
		filled: make(chan *pipeChunk, pipeDepth),
		free:   make(chan *pipeChunk, pipeDepth+1),
		stop:   make(chan struct{}),
	}
	for range pipeDepth + 1 {
		p.free <- &pipeChunk{}
	}
	return p
}

// Read delivers the source's bytes in order; after the last, the error
// that ended the source (io.EOF at its end), and fs.ErrClosed after Close.
func (p *pipe) Read(b []byte) (int, error) {
	select {
	case <-p.stop:
		return 0, fs.ErrClosed
	default:
	}
	if !p.started {
		p.started = true
		go p.produce()
	}
	for p.cur == nil || p.pos == len(p.cur.data) {
		if p.cur != nil {
			if p.cur.err != nil {
				return 0, p.cur.err
			}
			p.free <- p.cur
			p.cur = nil
		}
		select {
		case c := <-p.filled:
			p.cur, p.pos = c, 0
		case <-p.stop:
			return 0, fs.ErrClosed
		}
	}
	n := copy(b, p.cur.data[p.pos:])
	p.pos += n
	return n, nil
}

// close stops the goroutine: it returns once its current read of the
// source returns.
func (p *pipe) close() { p.halt.Do(func() { close(p.stop) }) }

// produce fills free chunks from the source and hands them over in order
// until the source fails or ends, or the pipe is closed.
func (p *pipe) produce() {
	for {
		var c *pipeChunk
		select {
		case c = <-p.free:
		case <-p.stop:
			return
		}
		if c.data == nil {
			c.data = make([]byte, pipeChunkSize)
		}
		c.data = c.data[:cap(c.data)]
		n := 0
		var err error
		for n < len(c.data) && err == nil {
			var k int
			k, err = p.src.Read(c.data[n:])
			n += k
		}
		c.data, c.err = c.data[:n], err
		select {
		case p.filled <- c:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}
