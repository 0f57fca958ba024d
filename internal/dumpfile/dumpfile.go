// Package dumpfile reads a dump file a second time, after its heap was
// loaded or mapped from its index: the model.DumpReader of a heap whose
// dump is a file. Objects are read at their record offsets through
// hprof.ObjectReader where the file's compression allows, else the whole
// dump is streamed again through the record source of its format (binary
// HPROF, the agent's ASCII output, a JVMPI capture or bare buffer).
package dumpfile

import (
	"os"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// Attach attaches to h the reader of its dump at path (Reader).
func Attach(h *model.Heap, path string) { h.SetDumpReader(Reader(h, path)) }

// Reader returns the reader of the dump at path that h was loaded from.
func Reader(h *model.Heap, path string) model.DumpReader {
	return &File{Path: path, heap: h}
}

// File is the model.DumpReader of a dump file.
type File struct {
	// Path names the dump file.
	Path string
	heap *model.Heap
}

// Objects opens the file and calls fn with a reader of its objects at
// their record offsets; hprof.ErrNoRandomAccess when its compression
// allows none.
func (d *File) Objects(o hprof.ObjectReaderOptions, fn func(*hprof.ObjectReader) error) error {
	if !o.RandomAccess() {
		return hprof.ErrNoRandomAccess
	}
	f, err := os.Open(d.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := hprof.NewObjectReader(f, st.Size(), o)
	if err != nil {
		return err
	}
	return fn(r)
}

// Records opens the file again and calls fn with its record source, the
// one the heap was loaded through.
func (d *File) Records(fn func(hprof.Source) error) error {
	f, err := input.Open(d.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := d.heap.OpenSource(f)
	if err != nil {
		return err
	}
	return fn(src)
}
