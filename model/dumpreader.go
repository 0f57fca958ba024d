package model

import (
	"errors"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// DumpReader reads the dump a heap was loaded from a second time, for
// what the heap does not keep: field values, array elements, labelled
// references, the texts of Strings. Whoever loads a heap, or maps it from
// an index, attaches one (SetDumpReader): the heap opens no file itself.
// internal/dumpfile reads a dump file; Unreadable stands for a dump that
// is gone (standard input).
type DumpReader interface {
	// Objects calls fn with a reader of the dump's objects at their record
	// offsets, for a dump stored as o says (Heap.ObjectReaderOptions). It
	// returns hprof.ErrNoRandomAccess without calling fn when the dump can
	// only be streamed (hprof.NewObjectReader); the heap then uses Records.
	Objects(o hprof.ObjectReaderOptions, fn func(*hprof.ObjectReader) error) error
	// Records calls fn with the dump's records, read again from its start
	// through the record source of its format (Heap.OpenSource).
	Records(fn func(hprof.Source) error) error
}

// Unreadable is the DumpReader of a dump that cannot be read again: every
// read fails with Err.
type Unreadable struct{ Err error }

// Objects returns u.Err.
func (u Unreadable) Objects(hprof.ObjectReaderOptions, func(*hprof.ObjectReader) error) error {
	return u.Err
}

// Records returns u.Err.
func (u Unreadable) Records(func(hprof.Source) error) error { return u.Err }

// errNoDumpReader is what reading values from a heap that has no
// DumpReader attached fails with.
var errNoDumpReader = errors.New("the heap's dump was not attached for reading it again")

// SetDumpReader attaches r to h: the reader of the dump h was loaded from,
// through which ReadValues, EachValues, ReadLabels and ReadStrings read
// it again.
func (h *Heap) SetDumpReader(r DumpReader) { h.dump = r }

// dumpReader is the DumpReader attached to h, an Unreadable one when
// there is none.
func (h *Heap) dumpReader() DumpReader {
	if h.dump == nil {
		return Unreadable{Err: errNoDumpReader}
	}
	return h.dump
}

// ObjectReaderOptions describe the dump h was loaded from for reading its
// objects at their record offsets: its header and how it is stored.
func (h *Heap) ObjectReaderOptions() hprof.ObjectReaderOptions {
	return hprof.ObjectReaderOptions{
		Header:      hprof.Header{Version: h.Source.Version, IDSize: h.Source.IDSize, Time: h.Source.Time},
		Compression: input.Compression(h.Source.Compression),
		Checkpoints: h.checkpoints,
	}
}

// OpenSource opens f, the dump h was loaded from read again, as the record
// source h was loaded through: by its format, a bare JVMPI buffer as the
// load described it.
func (h *Heap) OpenSource(f *input.File) (hprof.Source, error) {
	return openSource(f, h.jvmpiBare)
}
