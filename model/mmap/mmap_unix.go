//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mmap

import (
	"os"
	"syscall"
)

// Supported is true where Map maps files; elsewhere it reads them.
const Supported = true

// Map maps the first size bytes of f read-only. unmap releases them; f
// stays open and belongs to the caller.
func Map(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	if err := fits(size); err != nil {
		return nil, nil, err
	}
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// MapRange maps n bytes of f from offset off read-only, wherever off
// lies (the mapping starts at the page that holds it). unmap releases
// them; f stays open and belongs to the caller.
func MapRange(f *os.File, off, n int64) (data []byte, unmap func() error, err error) {
	return mapRange(f, off, n, populate)
}

// MapRangeLazy is MapRange for a range read later, and maybe only in
// part: its pages are read as they are first touched.
func MapRangeLazy(f *os.File, off, n int64) (data []byte, unmap func() error, err error) {
	return mapRange(f, off, n, 0)
}

// mapRange maps n bytes of f from offset off with the extra mmap flags
// given.
func mapRange(f *os.File, off, n int64, flags int) ([]byte, func() error, error) {
	if err := fits(n); err != nil {
		return nil, nil, err
	}
	if n == 0 {
		return nil, func() error { return nil }, nil
	}
	start := off &^ int64(os.Getpagesize()-1)
	whole, err := syscall.Mmap(int(f.Fd()), start, int(n+off-start), syscall.PROT_READ, syscall.MAP_SHARED|flags)
	if err != nil {
		return nil, nil, err
	}
	return whole[off-start:], func() error { return syscall.Munmap(whole) }, nil
}
