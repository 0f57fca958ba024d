package store

import (
	"os"

	"github.com/hprofctl/hprofctl/model/mmap"
)

// MappedArray maps, read-only, the array section name of element type T
// that w has written and flushed (StartWriteback), from w's own file, so
// that a build may drop its own copy of a large table once the index holds
// it. unmap releases the mapping, which outlives Commit and Abort. ok is
// false, with nothing mapped, where the array cannot be used in place:
// the system maps no files, the machine is big-endian, the section is
// empty, of another type or not written out yet, or lies where the
// writer will still write past the page cache (the page it left
// unfinished; such writes would not reach a mapped page), or in the
// file's first page, which Commit rewrites.
func MappedArray[T Integer](w *Writer, name string) (arr []T, unmap func() error, ok bool, err error) {
	if err := w.usable(); err != nil {
		return nil, nil, false, err
	}
	if !mmap.Supported || !nativeLittleEndian {
		return nil, nil, false, nil
	}
	var e *entry
	for i := range w.entries {
		if w.entries[i].name == name {
			e = &w.entries[i]
		}
	}
	page := uint64(os.Getpagesize())
	switch {
	case e == nil, e.kind != kindOf[T](), e.length == 0, e.offset < page:
		return nil, nil, false, nil
	case (e.offset+e.length+page-1)/page*page > w.flushed/page*page:
		return nil, nil, false, nil
	}
	data, unmap, err := mmap.MapRangeLazy(w.f, int64(e.offset), int64(e.length))
	if err != nil {
		return nil, nil, false, err
	}
	return view[T](data), unmap, true, nil
}
