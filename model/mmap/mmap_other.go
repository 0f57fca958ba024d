//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package mmap

import (
	"io"
	"os"
	"unsafe"
)

// Supported is true where Map maps files; elsewhere it reads them.
const Supported = false

// Map reads the first size bytes of f into memory where this package
// does not map files. The buffer is allocated as uint64s so that it is
// aligned as a mapping would be for every element type. f stays open and
// belongs to the caller.
func Map(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	if err := fits(size); err != nil {
		return nil, nil, err
	}
	words := make([]uint64, (size+7)/8)
	data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// MapRange reads n bytes of f from offset off into memory where this
// package does not map files. f stays open and belongs to the caller.
func MapRange(f *os.File, off, n int64) (data []byte, unmap func() error, err error) {
	if err := fits(n); err != nil {
		return nil, nil, err
	}
	data = make([]byte, n)
	if _, err := f.ReadAt(data, off); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// Release does nothing where this package reads files instead of mapping
// them: the bytes read are the only copy.
func Release(data []byte) error { return nil }

// MapRangeLazy is MapRange: where this package reads files, it reads the
// range at once.
func MapRangeLazy(f *os.File, off, n int64) (data []byte, unmap func() error, err error) {
	return MapRange(f, off, n)
}
