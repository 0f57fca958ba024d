package model

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// A compressed dump reads as one stream (its members inflated side by
// side where the JVM wrote it in blocks, parser/input), so its pieces
// cannot be mapped as a plain dump's are: loadStreamInPieces reads the
// stream's records up to the first object into memory and has the builder
// read them (as readPrefix does from a plain file), then cuts the
// segments that follow into batches, at the sub-record boundaries a
// Skimmer finds, and the workers parse them as they parse a plain dump's
// (splitQueue). The stream is read once. A dump that strays from the
// shape the workers know is read again from its first byte the ordinary
// way (input.File.Rewind), which says what is wrong with it.

// loadStreamInPieces loads the compressed dump f with its objects in
// pieces on every core; an error wrapping errNotSplit, f rewound, when f
// is not such a dump, which Load then reads the ordinary way.
func loadStreamInPieces(f *input.File, opt LoadOptions) (*Heap, error) {
	if f.Plain() != nil || f.Compression == input.Plain || !f.Rewindable() || !opt.Objects || opt.JVMPI != nil {
		return nil, errNotSplit
	}
	if format, err := f.Sniff(false); err != nil || format.Kind != input.KindHPROF {
		return nil, errNotSplit
	}
	// The Strings' values of a compressed dump are not taken: an index
	// build leaves its census to the question, which would have to read
	// the arrays that share a digest again from the dump, inflating its
	// members once more.
	opt.StringValues = false
	h, err := readStreamInPieces(f, opt)
	if errors.Is(err, errNotSplit) {
		if rerr := f.Rewind(); rerr != nil {
			return nil, rerr
		}
	}
	return h, err
}

// readStreamInPieces is loadStreamInPieces once f is known to be a
// compressed binary HPROF file.
func readStreamInPieces(f *input.File, opt LoadOptions) (*Heap, error) {
	s := &dumpStream{r: bufio.NewReaderSize(f, 1<<20)}
	prefix, err := s.readPrefix()
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	b, err := prefixBuilder(f, bytes.NewReader(prefix), opt)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	classes := b.splitClasses()
	if err := s.readPieces(b, classes, runtime.GOMAXPROCS(0)); err != nil {
		b.objects.reset()
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	b.h.Source.Bytes = s.off
	// The segments after the one cut are no records of the prefix.
	if s.later > 0 {
		b.h.RecordCounts[hprof.TagHeapDumpSegment.String()] += int64(s.later)
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b.h, nil
}

// dumpStream reads a binary HPROF stream for loadStreamInPieces.
type dumpStream struct {
	r *bufio.Reader
	// off is the stream offset of r's next byte.
	off    int64
	idSize int
	// whole is set for a dump in one HEAP_DUMP record, not in segments.
	whole bool
	// later counts the segments after the one the prefix cuts.
	later int
	// left is how many bytes of the current segment's body r has still
	// to give; carry are those read but not yet in a batch, which start
	// at stream offset off-len(carry).
	left  int64
	carry []byte
}

// heapDumpEnd is the HEAP_DUMP_END record a segmented dump ends with.
var heapDumpEnd = []byte{byte(hprof.TagHeapDumpEnd), 0, 0, 0, 0, 0, 0, 0, 0}

// appendN appends the stream's next n bytes to buf.
func (s *dumpStream) appendN(buf []byte, n int64) ([]byte, error) {
	at := len(buf)
	// Grown as the bytes arrive: a length that lies costs no more
	// memory than the stream holds.
	for n > 0 {
		step := min(n, 16<<20)
		buf = append(buf, make([]byte, step)...)
		if _, err := io.ReadFull(s.r, buf[len(buf)-int(step):]); err != nil {
			return buf[:at], fmt.Errorf("stream offset %d: %w", s.off, err)
		}
		s.off += step
		n -= step
	}
	return buf, nil
}

// readPrefix reads the stream's header and records up to the first
// object record of its heap dump, and returns them as a stream of their
// own for the builder: the heap dump record that holds the first object
// cut there and, for a dump in segments, followed by a HEAP_DUMP_END
// record. What the record cut holds from the first object on is left in
// carry.
func (s *dumpStream) readPrefix() ([]byte, error) {
	head, _ := s.r.Peek(64)
	nul := bytes.IndexByte(head, 0)
	if nul < 0 || nul+13 > len(head) {
		return nil, errors.New("no binary HPROF header")
	}
	s.idSize = int(binary.BigEndian.Uint32(head[nul+1:]))
	if s.idSize != 4 && s.idSize != 8 {
		return nil, fmt.Errorf("identifiers of %d bytes", s.idSize)
	}
	prefix, err := s.appendN(nil, int64(nul+13))
	if err != nil {
		return nil, err
	}
	for {
		at := len(prefix)
		if prefix, err = s.appendN(prefix, 9); err != nil {
			return nil, err
		}
		hdr := prefix[at:]
		length := int64(binary.BigEndian.Uint32(hdr[5:]))
		switch tag := hprof.Tag(hdr[0]); tag {
		case hprof.TagHeapDumpSegment, hprof.TagHeapDump:
			s.whole = tag == hprof.TagHeapDump
			body, first, err := s.firstObject(length)
			if err != nil {
				return nil, err
			}
			if first < 0 {
				prefix = append(prefix, body...)
				continue
			}
			binary.BigEndian.PutUint32(prefix[at+5:], uint32(first))
			prefix = append(prefix, body[:first]...)
			s.carry = body[first:]
			s.left = length - int64(len(body))
			if !s.whole {
				prefix = append(prefix, heapDumpEnd...)
			}
			return prefix, nil
		case hprof.TagHeapDumpEnd:
			return nil, errors.New("no object records")
		default:
			if prefix, err = s.appendN(prefix, length); err != nil {
				return nil, err
			}
		}
	}
}

// firstObject reads the body of a heap dump record of length bytes up to
// its first object record, a window at a time, and returns what it read
// and where in it that record starts; -1 with the whole body when it
// holds none.
func (s *dumpStream) firstObject(length int64) (body []byte, first int, err error) {
	sk := hprof.NewSkimmer(s.idSize)
	pos := 0 // where the walk goes on in body
	for {
		if want := min(skimWindow, length-int64(len(body))); want > 0 {
			if body, err = s.appendN(body, want); err != nil {
				return nil, 0, err
			}
		}
		sk.Reset(body[pos:], length-int64(pos))
		for sk.Next() {
			switch r := sk.Record(); r.Sub {
			case hprof.SubInstanceDump, hprof.SubObjArrayDump, hprof.SubPrimArrayDump:
				return body, pos + r.Start, nil
			}
		}
		if err := sk.Err(); err != nil {
			return nil, 0, err
		}
		if !sk.More() {
			return body, -1, nil
		}
		pos += int(sk.Pos())
	}
}

// streamBatch is a stretch of whole sub-records of one heap dump record
// and its stream offset: a batch's number in dump order, its bytes and
// where they start. Its bytes are a buffer of the stream's, or for one
// sub-record larger than a batch (large), a table of model/bigmem.
type streamBatch struct {
	k     int
	data  []byte
	base  int64
	large bool
}

// readPieces cuts the rest of the stream into batches of whole
// sub-records and has workers workers parse them into b's tables
// (splitQueue); an error when the stream strays from a heap dump that
// ends it: segments one after another, then a HEAP_DUMP_END record (or
// one HEAP_DUMP record alone).
func (s *dumpStream) readPieces(b *builder, cl *splitClasses, workers int) error {
	q := newSplitQueue(b, workers, func(int64) {})
	batchBytes := int(splitBatchFor(workers))
	// The buffers are those of the batches waiting for a worker, one each
	// worker parses, and the one being filled: they are on the Go heap,
	// where the garbage collector's growth counts them again, so there
	// are no more than that.
	free := make(chan []byte, 2*workers+1)
	for range cap(free) {
		free <- nil
	}
	batches := make(chan streamBatch, workers)
	parsed := make(chan error, 1)
	go func() {
		parsed <- q.run(cl, workers, func() (int, pieceParser, bool) {
			bt, ok := <-batches
			if !ok {
				return 0, nil, false
			}
			return bt.k, func(w *splitWorker, p *splitPiece) error {
				p.bytes = int64(len(bt.data))
				err := w.parse(p, bt.data, bt.base)
				if bt.large {
					bigmem.Free(bt.data)
				} else {
					free <- bt.data[:0]
				}
				return err
			}, true
		})
	}()
	err := s.sendBatches(batches, free, q.halted, batchBytes)
	close(batches)
	if perr := <-parsed; perr != nil {
		return perr
	}
	return err
}

// sendBatches sends the batches of the rest of the stream, each in a
// buffer from free, until the stream ends or halted is closed.
func (s *dumpStream) sendBatches(batches chan<- streamBatch, free chan []byte, halted <-chan struct{}, batchBytes int) error {
	for k := 0; ; k++ {
		var buf []byte
		select {
		case buf = <-free:
		case <-halted:
			return nil
		}
		more, err := s.nextSegment()
		if err != nil || !more {
			return err
		}
		bt := streamBatch{k: k, base: s.off - int64(len(s.carry))}
		if bt.data, bt.large, err = s.nextBatch(append(buf, s.carry...), batchBytes); err != nil {
			return err
		}
		if bt.large {
			free <- buf[:0]
		}
		select {
		case batches <- bt:
		case <-halted:
			return nil
		}
	}
}

// nextSegment reads, where the current heap dump record is read whole,
// the header of the next; false at the stream's end, which must come
// after the one HEAP_DUMP record or a HEAP_DUMP_END record.
func (s *dumpStream) nextSegment() (bool, error) {
	for s.left == 0 && len(s.carry) == 0 {
		if s.whole {
			return false, s.atEnd("the HEAP_DUMP record")
		}
		hdr, err := s.appendN(nil, 9)
		if err != nil {
			return false, err
		}
		length := int64(binary.BigEndian.Uint32(hdr[5:]))
		switch hprof.Tag(hdr[0]) {
		case hprof.TagHeapDumpSegment:
			s.left = length
			s.later++
		case hprof.TagHeapDumpEnd:
			if length != 0 {
				return false, fmt.Errorf("stream offset %d: a HEAP_DUMP_END record of %d bytes", s.off-9, length)
			}
			return false, s.atEnd("the HEAP_DUMP_END record")
		default:
			return false, fmt.Errorf("stream offset %d: a %s record among the heap dump segments", s.off-9, hprof.Tag(hdr[0]))
		}
	}
	return true, nil
}

// atEnd checks that the stream ends here, after what.
func (s *dumpStream) atEnd(what string) error {
	if _, err := s.r.Peek(1); err != io.EOF {
		return fmt.Errorf("stream offset %d: more after %s", s.off, what)
	}
	return nil
}

// nextBatch fills buf, which starts with the carry, with the current
// heap dump record's next bytes, about batchBytes of them, and returns
// the whole sub-records at its start, the bytes after them carried to
// the next batch. A sub-record larger than the batch is returned alone,
// in a table of model/bigmem (large), buf unused: within the budget on
// the Go heap, past it in a scratch file, where a buffer of the Go heap
// as large (a third of a gigabyte for the largest array of the 32 GiB
// synthetic dump) would count once more in the garbage collector's
// growth.
func (s *dumpStream) nextBatch(buf []byte, batchBytes int) (data []byte, large bool, err error) {
	if n := min(int64(batchBytes-len(buf)), s.left); n > 0 {
		if buf, err = s.appendN(buf, n); err != nil {
			return nil, false, err
		}
		s.left -= n
	}
	sk := hprof.NewSkimmer(s.idSize)
	for {
		// cut ends the whole sub-records; end is where the one after
		// them ends, when its header is read.
		cut, end := 0, 0
		sk.Reset(buf, int64(len(buf))+s.left)
		for sk.Next() {
			if end = sk.Record().End; end > len(buf) {
				break
			}
			cut = end
		}
		if err := sk.Err(); err != nil {
			return nil, false, fmt.Errorf("stream offset %d: %v", s.off-int64(len(buf)), err)
		}
		switch {
		case cut > 0:
			s.carry = append(s.carry[:0], buf[cut:]...)
			return buf[:cut], false, nil
		case s.left == 0:
			return nil, false, fmt.Errorf("stream offset %d: a sub-record runs past its heap dump record", s.off-int64(len(buf)))
		case end > len(buf):
			data, err := s.readLarge(buf, end)
			return data, true, err
		}
		// The header of the sub-record is not whole yet.
		n := min(int64(min(64<<10, batchBytes)), s.left)
		if buf, err = s.appendN(buf, n); err != nil {
			return nil, false, err
		}
		s.left -= n
	}
}

// readLarge reads a sub-record of end bytes that starts buf, the rest of
// it from the stream, into a table of model/bigmem, grown as the bytes
// arrive (a length that lies costs no more than the stream holds).
func (s *dumpStream) readLarge(buf []byte, end int) ([]byte, error) {
	data := bigmem.Append[byte](nil, buf...)
	var chunk []byte
	for len(data) < end {
		var err error
		n := min(end-len(data), 16<<20)
		if chunk, err = s.appendN(chunk[:0], int64(n)); err != nil {
			bigmem.Free(data)
			return nil, err
		}
		s.left -= int64(n)
		data = bigmem.Append(data, chunk...)
	}
	s.carry = s.carry[:0]
	return data, nil
}
