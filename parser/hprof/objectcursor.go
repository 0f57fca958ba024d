package hprof

import (
	"errors"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/parser/input"
)

// ObjectCursor decodes objects at their record offsets as
// ObjectReader.ReadObject does, for one goroutine reading many objects in
// the order of their offsets. In a gzip file, ReadObject decompresses the
// member that holds an object from its start for every object; a cursor
// keeps the last two stretches between checkpoints it decompressed (a
// MiB each in the JVM's -gz dumps), so objects read in order of offset
// cost each member once. In a plain file it reads as ReadObject does.
type ObjectCursor struct {
	x *ObjectReader
	// z inflates the stretches, with one decompressor for all.
	z *input.Resumer
	// kept are the stretches decompressed last; older is the one the
	// next stretch replaces.
	kept  [2]stretch
	older int
	// longTail says the stream after the last checkpoint was found longer
	// than keptTail: it is streamed for each object there.
	longTail bool
}

// stretch is the decompressed bytes from one gzip checkpoint to the next.
type stretch struct {
	// at is the index of the checkpoint it starts at, -1 when it holds
	// none.
	at   int
	data []byte
	// whole says data runs to the end of the stream (the last
	// checkpoint's stretch).
	whole bool
}

// Cursor returns a cursor over the objects of x. It holds up to two
// stretches between checkpoints decompressed (at most 64 MiB each, as
// RandomAccess bounds them), and is for one goroutine.
func (x *ObjectReader) Cursor() *ObjectCursor {
	return &ObjectCursor{x: x, z: input.NewResumer(x.at, x.size), kept: [2]stretch{{at: -1}, {at: -1}}}
}

// ReadObject is ObjectReader.ReadObject, through the stretches c keeps.
func (c *ObjectCursor) ReadObject(off int64, id uint64, fn func(Source, *Record) error) error {
	if c.x.Plain() {
		return c.x.ReadObject(off, id, fn)
	}
	at, err := c.x.checkpointBefore(off, id)
	if err != nil {
		return err
	}
	return c.x.readRecord(&stretchStream{c: c, id: id, at: at, pos: off}, off, id, fn)
}

// stretchOf returns the stretch that starts at checkpoint at,
// decompressing it unless kept.
func (c *ObjectCursor) stretchOf(at int) (*stretch, error) {
	for i := range c.kept {
		if c.kept[i].at == at {
			c.older = 1 - i
			return &c.kept[i], nil
		}
	}
	cps := c.x.o.Checkpoints
	last := at == len(cps)-1
	if last && c.longTail {
		return nil, errLongTail
	}
	s := &c.kept[c.older]
	c.older = 1 - c.older
	s.at = -1
	z, err := c.z.Resume(cps[at])
	if err != nil {
		return nil, err
	}
	// The last stretch runs to the end of the stream: it is kept when it
	// is no longer than keptTail.
	want := keptTail + 1
	if !last {
		want = cps[at+1].Offset - cps[at].Offset
		if want <= 0 || want > maxCheckpointGap {
			return nil, fmt.Errorf("gzip checkpoints at offsets %d and %d: %d bytes apart, expected 1 to %d", cps[at].Offset, cps[at+1].Offset, want, maxCheckpointGap)
		}
	}
	if int64(cap(s.data)) < want && !last {
		s.data = make([]byte, want)
	}
	s.data = s.data[:0]
	s.data, err = readUpTo(z, s.data, want)
	switch {
	case err != nil:
		return nil, fmt.Errorf("decompressing the gzip member at offset %d: %w", cps[at].Stored, err)
	case !last && int64(len(s.data)) < want:
		return nil, fmt.Errorf("the gzip member at offset %d ends after %d of its %d bytes: %w", cps[at].Stored, len(s.data), want, input.ErrChanged)
	case last && int64(len(s.data)) == want:
		c.longTail = true
		return nil, errLongTail
	}
	s.at, s.whole = at, last
	return s, nil
}

// keptTail is the longest stream after the last checkpoint a cursor
// keeps: the gap RandomAccess allows between checkpoints.
var keptTail int64 = maxCheckpointGap

// errLongTail says the stream after the last checkpoint is longer than
// a stretch is kept: it is streamed instead.
var errLongTail = errors.New("the stream after the last gzip checkpoint is too long to keep")

// readUpTo appends to buf what r gives, up to want bytes in all, and
// returns it; the end of r is no error.
func readUpTo(r io.Reader, buf []byte, want int64) ([]byte, error) {
	for int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), want)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// stretchStream is the decompressed stream from offset pos on, read
// through the stretches a cursor keeps.
type stretchStream struct {
	c  *ObjectCursor
	id uint64
	// at is the index of the checkpoint whose stretch holds pos.
	at  int
	pos int64
	// tail is the stream from pos on once past a last stretch too long
	// to keep.
	tail io.Reader
}

// Read implements io.Reader.
func (s *stretchStream) Read(p []byte) (int, error) {
	if s.tail != nil {
		return s.tail.Read(p)
	}
	cps := s.c.x.o.Checkpoints
	for {
		st, err := s.c.stretchOf(s.at)
		if errors.Is(err, errLongTail) {
			if s.tail, err = s.c.x.from(s.pos, s.id); err != nil {
				return 0, err
			}
			return s.tail.Read(p)
		}
		if err != nil {
			return 0, err
		}
		if rel := s.pos - cps[s.at].Offset; rel < int64(len(st.data)) {
			n := copy(p, st.data[rel:])
			s.pos += int64(n)
			return n, nil
		}
		if st.whole {
			return 0, io.EOF
		}
		s.at++
	}
}
