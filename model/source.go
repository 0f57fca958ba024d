package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// RecordSource is a stream of heap records in HPROF's vocabulary, which is
// what the model is built from. The binary HPROF reader is one; the readers
// of the other dump formats are translated into it, as the hprof agent of
// JDK 1.2–1.4 itself translated JVMPI heap dumps into HPROF records.
type RecordSource interface {
	// Header describes the stream: version string and identifier size.
	Header() hprof.Header
	// Next, Record and Err iterate like bufio.Scanner.
	Next() bool
	Record() *hprof.Record
	Err() error
	// Payload and PayloadChunks return the current sub-record's instance
	// field bytes or array elements, big-endian, references IDSize bytes.
	Payload() ([]byte, error)
	PayloadChunks(fn func(chunk []byte) error) error
	IDSize() int
	ID(b []byte) uint64
	// Warnings and WarningCount report survivable oddities met so far.
	Warnings() []hprof.Warning
	WarningCount() int
	// Dumps is how many heap dumps were started; Offset how far the
	// stream was read (bytes, or lines for a lineSource).
	Dumps() int
	Offset() int64
}

// lineSource is a RecordSource of a line-oriented format: its offsets
// (Offset, warnings, records) are line numbers, and Bytes says how many
// bytes the lines read hold.
type lineSource interface {
	RecordSource
	Bytes() int64
}

// openSource opens the record source of a dump file, by its format: a
// JVMPI capture when a manifest describes the file, else the bare JVMPI
// buffer bare describes when it is not nil, else HPROF ASCII or binary.
func openSource(f *input.File, bare *jvmpi.Options) (RecordSource, string, error) {
	if manifest, ok := jvmpi.ManifestOf(f.Name); ok {
		src, err := openJVMPI(manifest)
		if err != nil {
			return nil, "", err
		}
		return src, "jvmpi", nil
	}
	if bare != nil {
		src, err := openBareJVMPI(f, *bare)
		if err != nil {
			return nil, "", err
		}
		return src, "jvmpi", nil
	}
	head := make([]byte, 32)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, "", fmt.Errorf("%s: %w", f.Name, err)
	}
	src := io.MultiReader(bytes.NewReader(head[:n]), f)
	if IsASCIIProfile(head[:n]) {
		a, err := openASCIIHeap(src, f.Name)
		if err != nil {
			return nil, "", err
		}
		return a, "hprof-ascii", nil
	}
	r, err := hprof.NewReader(src, hprof.Options{Name: f.Name})
	if err != nil {
		return nil, "", err
	}
	return r, "hprof", nil
}

// Load reads a heap dump from f, whatever its format.
func Load(f *input.File, opt LoadOptions) (*Heap, error) {
	src, format, err := openSource(f, opt.JVMPI)
	if err != nil {
		return nil, err
	}
	b := newBuilder(src, opt)
	b.h.jvmpiBare = opt.JVMPI
	b.h.Source.File = f.Name
	b.h.Source.Format = format
	b.h.Source.Compression = string(f.Compression)
	if err := b.run(); err != nil {
		return nil, err
	}
	if fin, ok := src.(heapFinisher); ok {
		fin.finishHeap(b.h)
	}
	return b.h, nil
}

// rereadDump streams the dump at path again and calls fn with every heap
// record of the heap dump h was loaded from; the file's end cut short is
// no error when h was loaded from what came before it.
func rereadDump(h *Heap, path string, fn func(RecordSource, *hprof.Record) error) error {
	if path == "-" {
		return fmt.Errorf("standard input cannot be read a second time")
	}
	f, err := input.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	src, _, err := openSource(f, h.jvmpiBare)
	if err != nil {
		return err
	}
	for src.Next() {
		rec := src.Record()
		if rec.Sub == 0 || rec.Dump != h.Source.Dump {
			continue
		}
		if err := fn(src, rec); err != nil {
			return err
		}
	}
	err = src.Err()
	if h.Truncated && errors.Is(err, hprof.ErrTruncated) {
		// The first read met the same cut, kept what came before it
		// and said so.
		return nil
	}
	return err
}
