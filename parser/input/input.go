// Package input opens dump files for the format parsers: a path or "-" for
// standard input, with gzip (single or multi-member) and bzip2 compression
// detected from the first bytes rather than from the file name.
package input

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// Compression names the compression an input was found to use.
type Compression string

// The compressions Open recognises.
const (
	Plain Compression = "none"
	Gzip  Compression = "gzip"
	Bzip2 Compression = "bzip2"
)

// File is an opened, decompressed input stream.
type File struct {
	// Name is the path given to Open, or "<stdin>".
	Name string
	// Compression is the compression detected from the first bytes.
	Compression Compression
	// Size is the size in bytes of the file as stored (compressed size for
	// compressed input), or -1 when unknown (standard input, pipes).
	Size int64

	r      io.Reader
	closer io.Closer
	raw    *countingReader
}

// Open opens path ("-" for standard input) and returns a stream of its
// decompressed bytes.
func Open(path string) (*File, error) {
	var src io.ReadCloser
	name := path
	size := int64(-1)
	if path == "-" {
		src = io.NopCloser(os.Stdin)
		name = "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		src = f
	}
	in, err := NewFile(name, src, size)
	if err != nil {
		src.Close()
		return nil, err
	}
	return in, nil
}

// NewFile wraps an already open stream; size is its stored size or -1. The
// File closes src when it is closed.
func NewFile(name string, src io.ReadCloser, size int64) (*File, error) {
	raw := &countingReader{r: src}
	br := bufio.NewReaderSize(raw, 1<<20)
	magic, _ := br.Peek(3)
	f := &File{Name: name, Compression: Plain, Size: size, closer: src, raw: raw}
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip header: %w", name, err)
		}
		f.Compression = Gzip
		f.r = bufio.NewReaderSize(zr, 1<<16)
	case bytes.HasPrefix(magic, []byte("BZh")):
		f.Compression = Bzip2
		f.r = bufio.NewReaderSize(bzip2.NewReader(br), 1<<16)
	default:
		// Past the bytes already buffered, read straight from the
		// source: the parsers keep large buffers of their own.
		head, _ := br.Peek(br.Buffered())
		f.r = io.MultiReader(bytes.NewReader(bytes.Clone(head)), raw)
	}
	return f, nil
}

// Read reads decompressed bytes.
func (f *File) Read(p []byte) (int, error) { return f.r.Read(p) }

// StoredOffset is how many bytes of the stored (possibly compressed) file
// have been read so far; progress reporting compares it with Size.
// It is safe to call from another goroutine.
func (f *File) StoredOffset() int64 { return f.raw.n.Load() }

// Close closes the underlying file.
func (f *File) Close() error { return f.closer.Close() }

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
