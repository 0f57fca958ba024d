// Package input opens dump files for the format parsers: a path or "-" for
// standard input, with gzip (single or multi-member) and bzip2 compression
// detected from the first bytes rather than from the file name.
//
// Decompression runs on goroutines of its own, beside the parser that reads
// the File: gzip and bzip2 on one, and the JVM's multi-member -gz files on
// up to GOMAXPROCS, one member each, delivered in order. The bytes and the
// errors are those of klauspost/compress/gzip and compress/bzip2 reading
// the file on the parser's goroutine. The start of each gzip member is recorded as a
// Checkpoint, from which Resume decompresses the rest of the file.
package input

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"
	"os"
	"runtime"
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
	// halt stops the decompressing goroutines; nil for plain files.
	halt        func()
	checkpoints *checkpointLog
	// plain is the regular file Open opened, when it is stored
	// uncompressed; nil otherwise.
	plain *os.File
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
	if f, ok := src.(*os.File); ok && size >= 0 && in.Compression == Plain {
		in.plain = f
	}
	return in, nil
}

// Plain returns the regular file f reads when it is stored uncompressed,
// for a reader that reads its pieces side by side (with ReadAt or a
// mapping) rather than as one stream; nil for compressed input, standard
// input or a pipe. The file belongs to f.
func (f *File) Plain() *os.File { return f.plain }

// Advance counts n more bytes of the stored file as read, for a reader
// that read them through Plain: StoredOffset, which progress displays
// follow, then includes them. It is safe to call from another goroutine.
func (f *File) Advance(n int64) { f.raw.n.Add(n) }

// NewFile wraps an already open stream; size is its stored size or -1. The
// File closes src when it is closed.
func NewFile(name string, src io.ReadCloser, size int64) (*File, error) {
	raw := &countingReader{r: src}
	br := bufio.NewReaderSize(raw, 1<<20)
	magic, _ := br.Peek(3)
	f := &File{Name: name, Compression: Plain, Size: size, closer: src, raw: raw}
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		f.Compression = Gzip
		f.checkpoints = &checkpointLog{}
		if blockSize, ok := jvmBlockSize(br); ok {
			z := newParallelGzip(br, blockSize, runtime.GOMAXPROCS(0), f.checkpoints)
			f.r, f.halt = z, z.close
			break
		}
		g, err := newGzipMembers(br, raw.n.Load, 0, 0, f.checkpoints)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip header: %w", name, err)
		}
		p := newPipe(g)
		f.r, f.halt = p, p.close
	case bytes.HasPrefix(magic, []byte("BZh")):
		f.Compression = Bzip2
		p := newPipe(bzip2.NewReader(br))
		f.r, f.halt = p, p.close
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

// ReadAhead has a plain file read on a goroutine of its own, ahead of its
// reader, as compressed files are decompressed: for a reader whose work
// per byte is little (a scan of the records), the copying out of the page
// cache then runs beside it. It must be called before the first Read.
func (f *File) ReadAhead() {
	if f.halt == nil {
		p := newPipe(f.r)
		f.r, f.halt = p, p.close
	}
}

// StoredOffset is how many bytes of the stored (possibly compressed) file
// have been read so far; progress reporting compares it with Size.
// It is safe to call from another goroutine.
func (f *File) StoredOffset() int64 { return f.raw.n.Load() }

// Close stops decompressing and closes the underlying file.
func (f *File) Close() error {
	if f.halt != nil {
		f.halt()
	}
	return f.closer.Close()
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
