// Package window is the read buffer the binary dump readers share: it
// holds the unread bytes of a stream between Pos and End, grows only as
// data arrives (so a length field that lies cannot make it allocate much
// more than the input), and moves the unread tail to the front only once
// it has grown to its steady size.
package window

import "io"

const (
	initialSize = 64 << 10
	steadySize  = 4 << 20
)

// Window is a buffered view of a stream; the bytes Buf[Pos:End] are read
// but not yet consumed.
type Window struct {
	Src    io.Reader
	Buf    []byte
	Pos    int
	End    int
	Base   int64 // stream offset of Buf[0]
	SrcErr error // the first error Src returned, io.EOF at its end
}

// New returns a Window on src.
func New(src io.Reader) Window {
	return NewSized(src, initialSize)
}

// NewSized returns a Window on src whose buffer starts at size bytes
// (at least 1), for a reader of a few records: one that reads a single
// object of a dump allocated New's 64 KiB for a record of some hundred
// bytes, 1.9 GB of garbage for the paths an index keeps of a 1 GiB dump.
func NewSized(src io.Reader, size int) Window {
	return Window{Src: src, Buf: make([]byte, max(size, 1))}
}

// Fill reads until at least n bytes are buffered or the source fails or
// ends, and returns how many are buffered.
func (w *Window) Fill(n int) int {
	for w.End-w.Pos < n && w.SrcErr == nil {
		if w.End == len(w.Buf) {
			if w.Pos > 0 && len(w.Buf) >= steadySize {
				copy(w.Buf, w.Buf[w.Pos:w.End])
				w.Base += int64(w.Pos)
				w.End -= w.Pos
				w.Pos = 0
			} else {
				grown := make([]byte, 2*len(w.Buf))
				copy(grown, w.Buf[:w.End])
				w.Buf = grown
			}
		}
		m, err := w.Src.Read(w.Buf[w.End:])
		w.End += m
		if err != nil {
			w.SrcErr = err
		}
	}
	return w.End - w.Pos
}

// Offset is the stream offset of the next unconsumed byte.
func (w *Window) Offset() int64 { return w.Base + int64(w.Pos) }
