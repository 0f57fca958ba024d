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
	// raw counts the stored bytes read; a new one after each Rewind,
	// while a goroutine may still read the old.
	raw atomic.Pointer[countingReader]
	// halt stops the decompressing goroutines; nil for plain files.
	halt        func()
	checkpoints *checkpointLog
	// plain is the regular file Open opened, when it is stored
	// uncompressed; nil otherwise.
	plain *os.File
	// path is the regular file Open opened, which Rewind opens again;
	// "" for other streams.
	path string
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
	if f, ok := src.(*os.File); ok && size >= 0 {
		in.path = path
		if in.Compression == Plain {
			in.plain = f
		}
	}
	return in, nil
}

// Rewindable reports whether Rewind can start f again: a regular file
// Open opened.
func (f *File) Rewindable() bool { return f.path != "" }

// Rewind starts f's stream again from its first byte, for a reader that
// read part of it and must read it whole again: the file is opened again
// by its path, and StoredOffset counts from 0 again, so that a progress
// display following f goes on from the start. Only a Rewindable f can.
func (f *File) Rewind() error {
	if !f.Rewindable() {
		return fmt.Errorf("%s: cannot be read again from its start", f.Name)
	}
	src, err := os.Open(f.path)
	if err != nil {
		return err
	}
	if f.halt != nil {
		f.halt()
	}
	f.closer.Close()
	f.closer, f.halt, f.checkpoints, f.plain = src, nil, nil, nil
	raw := &countingReader{r: src}
	f.raw.Store(raw)
	if err := f.decompress(raw); err != nil {
		return err
	}
	if f.Compression == Plain {
		f.plain = src
	}
	return nil
}

// Plain returns the regular file f reads when it is stored uncompressed,
// for a reader that reads its pieces side by side (with ReadAt or a
// mapping) rather than as one stream; nil for compressed input, standard
// input or a pipe. The file belongs to f.
func (f *File) Plain() *os.File { return f.plain }

// Advance counts n more bytes of the stored file as read, for a reader
// that read them through Plain: StoredOffset, which progress displays
// follow, then includes them. It is safe to call from another goroutine.
func (f *File) Advance(n int64) { f.raw.Load().n.Add(n) }

// NewFile wraps an already open stream; size is its stored size or -1. The
// File closes src when it is closed.
func NewFile(name string, src io.ReadCloser, size int64) (*File, error) {
	raw := &countingReader{r: src}
	f := &File{Name: name, Size: size, closer: src}
	f.raw.Store(raw)
	if err := f.decompress(raw); err != nil {
		return nil, err
	}
	return f, nil
}

// decompress sets f's stream to the decompressed bytes of raw, the
// stored file read from its start, as its first bytes say it is
// compressed.
func (f *File) decompress(raw *countingReader) error {
	br := bufio.NewReaderSize(raw, 1<<20)
	magic, _ := br.Peek(3)
	f.Compression = Plain
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
			return fmt.Errorf("%s: gzip header: %w", f.Name, err)
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
	return nil
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
func (f *File) StoredOffset() int64 { return f.raw.Load().n.Load() }

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
