package model

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprofascii"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// openSource opens the record source of a dump file, by its format
// (input.File.Sniff): a JVMPI capture when a manifest describes the file,
// else the bare JVMPI buffer bare describes when it is not nil, else the
// hprof agent's ASCII output, else binary HPROF (whose reader says what
// is wrong with a file that is none of these).
func openSource(f *input.File, bare *jvmpi.Options) (hprof.Source, error) {
	format, err := f.Sniff(bare != nil)
	if err != nil {
		return nil, err
	}
	switch format.Kind {
	case input.KindJVMPICapture:
		return jvmpi.OpenHeapSource(format.Manifest)
	case input.KindJVMPIBare:
		return jvmpi.NewHeapSource(jvmpi.BareCapture(f.Name, *bare), io.NopCloser(f))
	case input.KindHPROFASCII:
		return hprofascii.NewHeapSource(f, hprofascii.Options{Name: f.Name})
	}
	return hprof.NewReader(f, hprof.Options{Name: f.Name})
}

// Load reads a heap dump from f, whatever its format.
func Load(f *input.File, opt LoadOptions) (*Heap, error) {
	if opt.LeanGC && opt.Objects {
		defer leanGC()()
	}
	for _, load := range []func(*input.File, LoadOptions) (*Heap, error){loadInPieces, loadStreamInPieces} {
		if h, err := load(f, opt); !errors.Is(err, errNotSplit) {
			if h != nil && h.offsets != nil {
				h.checkpoints = f.Checkpoints()
			}
			return h, err
		}
	}
	return loadStream(f, opt)
}

// loadStream loads f with one reader from its first byte to its last.
func loadStream(f *input.File, opt LoadOptions) (*Heap, error) {
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
	if b.h.offsets != nil {
		b.h.checkpoints = f.Checkpoints()
	}
	return b.h, nil
}

// leanGC makes the garbage collector run at 20% heap growth until the
// function it returns is called, which restores the previous setting and
// hands the memory freed meanwhile back to the OS (LoadOptions.LeanGC).
func leanGC() (restore func()) {
	previous := debug.SetGCPercent(20)
	return func() {
		debug.SetGCPercent(previous)
		debug.FreeOSMemory()
	}
}

// rereadDump streams the dump h was loaded from again (its DumpReader)
// and calls fn with every heap record of the heap dump h was loaded from;
// the file's end cut short is no error when h was loaded from what came
// before it.
func rereadDump(h *Heap, fn func(hprof.Source, *hprof.Record) error) error {
	return h.dumpReader().Records(func(src hprof.Source) error {
		if ids := src.IDSize(); ids != h.Source.IDSize {
			return fmt.Errorf("the dump's ids take %d bytes, its heap (from an index?) says %d: it is not the dump the heap was read from", ids, h.Source.IDSize)
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
		err := src.Err()
		if h.Truncated && errors.Is(err, hprof.ErrTruncated) {
			// The first read met the same cut, kept what came before it
			// and said so.
			return nil
		}
		return err
	})
}
