//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

import (
	"errors"
	"os"
	"syscall"

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
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fail(err)
	}
	return &scratch{data: data, file: f}, nil
}

// release unmaps s and closes its file, which gives its disk space back.
func (s *scratch) release() error {
	return errors.Join(unix.Munmap(s.data), s.file.Close())
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
