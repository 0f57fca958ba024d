package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// openSource opens the record source of a dump file, by its format: a
// JVMPI capture when a manifest describes the file, else the bare JVMPI
// buffer bare describes when it is not nil, else HPROF ASCII or binary.
func openSource(f *input.File, bare *jvmpi.Options) (hprof.Source, error) {
	if manifest, ok := jvmpi.ManifestOf(f.Name); ok {
		return jvmpi.OpenHeapSource(manifest)
	}
	if bare != nil {
		return jvmpi.NewHeapSource(jvmpi.BareCapture(f.Name, *bare), io.NopCloser(f))
	}
	head := make([]byte, 32)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	src := io.MultiReader(bytes.NewReader(head[:n]), f)
	if IsASCIIProfile(head[:n]) {
		return hprofascii.NewHeapSource(src, hprofascii.Options{Name: f.Name})
	}
	return hprof.NewReader(src, hprof.Options{Name: f.Name})
}

// Load reads a heap dump from f, whatever its format.
func Load(f *input.File, opt LoadOptions) (*Heap, error) {
	src, err := openSource(f, opt.JVMPI)
	if err != nil {
		return nil, err
	}
	b := newBuilder(src, opt)
	b.h.jvmpiBare = opt.JVMPI
	b.h.Source.File = f.Name
	b.h.Source.Compression = string(f.Compression)
	if err := b.run(); err != nil {
		return nil, err
	}
	return b.h, nil
}

// rereadDump streams the dump at path again and calls fn with every heap
// record of the heap dump h was loaded from; the file's end cut short is
// no error when h was loaded from what came before it.
func rereadDump(h *Heap, path string, fn func(hprof.Source, *hprof.Record) error) error {
	if path == "-" {
		return fmt.Errorf("standard input cannot be read a second time")
	}
	f, err := input.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := openSource(f, h.jvmpiBare)
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
