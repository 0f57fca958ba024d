//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unsafe"
)

// mapFile reads the first size bytes of f into memory where this package
// does not map files, and closes f. The buffer is allocated as uint64s so
// that it is aligned as a mapping would be for every element type. Checks
// read the buffer.
func mapFile(f *os.File, size int64) (*mapping, error) {
	if int64(int(size)) != size || size > 1<<62 {
		return nil, fmt.Errorf("%d bytes do not fit in this machine's address space", size)
	}
	words := make([]uint64, (size+7)/8)
	data := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return &mapping{data: data, src: bytes.NewReader(data), release: func() error { return nil }}, nil
}
