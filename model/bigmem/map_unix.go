//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A scratch is a mapping of a scratch file, removed from its directory
// before it is mapped: the disk space goes back when the scratch is
// released or the process ends. The file stays open so that a scratch
// whose table was freed can be zeroed for the next one (zero) without
// unmapping it.
type scratch struct {
	data []byte
	file *os.File
}

// mapScratch maps size bytes of a new scratch file in dir (else in the
// system's temporary directory, when dir takes no new file). The file's
// blocks are reserved first (where the system can), so that a full disk
// is an error here rather than a fault when a page is written back.
func mapScratch(dir string, size int64) (*scratch, error) {
	if int64(int(size)) != size {
		return nil, syscall.EFBIG
	}
	f, err := os.CreateTemp(dir, "hprofctl-scratch-*")
	if err != nil && dir != "" {
		f, err = os.CreateTemp("", "hprofctl-scratch-*")
	}
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*scratch, error) {
		f.Close()
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		return fail(err)
	}
	if err := reserve(f, size); err != nil {
		return fail(err)
	}
	s := &scratch{file: f}
	if err := s.mapAt(nil, int(size)); err != nil {
		return fail(err)
	}
	return s, nil
}

// mapAt maps the first size bytes of s's file at addr, in place of what
// was mapped there, or where the system chooses when addr is nil, and
// makes that s's data. s's data is unchanged when it fails. The mappings
// are made and unmapped through pointers, not the unix package's
// bookkeeping of the slices it mapped: a scratch file's data moves, and
// is unmapped a part of a larger range at a time (joinScratch).
func (s *scratch) mapAt(addr unsafe.Pointer, size int) error {
	flags := unix.MAP_SHARED
	if addr != nil {
		flags |= unix.MAP_FIXED
	}
	p, err := unix.MmapPtr(int(s.file.Fd()), 0, addr, uintptr(size), unix.PROT_READ|unix.PROT_WRITE, flags)
	if err != nil {
		return err
	}
	s.data = unsafe.Slice((*byte)(p), size)
	return nil
}

// unmap unmaps data, a range of addresses mapped whole by mmap.
func unmap(data []byte) error {
	return unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(data)), uintptr(len(data)))
}

// joinScratch maps the files of parts one after the other in one range
// of addresses, which it returns: a table larger than any of them in
// pages that the page cache holds already (the first write to a page of
// a new file costs about twenty times the clearing of a held one). Each
// part's data becomes its piece of the range, its own mapping still, so
// that the parts can go their own ways once the table is freed. On an
// error every part is mapped whole somewhere, as before or in the range.
func joinScratch(parts []*scratch) ([]byte, error) {
	total := 0
	for _, p := range parts {
		total += len(p.data)
	}
	base, err := unix.MmapPtr(-1, 0, nil, uintptr(total), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, err
	}
	at := 0
	for _, p := range parts {
		old := p.data
		if err := p.mapAt(unsafe.Add(base, at), len(old)); err != nil {
			// The range's part that no file took goes back: nothing
			// else to do if it cannot.
			_ = unix.MunmapPtr(unsafe.Add(base, at), uintptr(total-at))
			return nil, err
		}
		// The old mapping only holds addresses now: nothing to do if
		// it cannot go.
		_ = unmap(old)
		at += len(old)
	}
	return unsafe.Slice((*byte)(base), total), nil
}

// release unmaps s and closes its file, which gives its disk space back.
func (s *scratch) release() error {
	return errors.Join(unmap(s.data), s.file.Close())
}

// rest takes the pages of s, whose table was freed, out of the process:
// the page cache keeps them, so that the next table given s finds them
// there (zero).
func (s *scratch) rest() {
	// Pages that stay only cost resident memory until the next drop, and
	// advice that stays only the next table's read-ahead: nothing to do
	// but go on.
	_ = unix.Madvise(s.data, unix.MADV_DONTNEED)
	_ = unix.Madvise(s.data, unix.MADV_NORMAL)
}

// adviseRandom tells the system that the mapping is used at random, so
// that its faults read no pages ahead and make no large folios.
func (s *scratch) adviseRandom() {
	// Without the advice the table is only slower: nothing to do but go on.
	_ = unix.Madvise(s.data, unix.MADV_RANDOM)
}
