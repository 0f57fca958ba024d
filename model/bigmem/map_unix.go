//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

import (
	"os"
	"syscall"
)

// mapScratch maps size bytes of a new scratch file in dir (else in the
// system's temporary directory, when dir takes no new file), removed from
// the directory before it is mapped: the disk space goes back when the
// mapping is released or the process ends. The file's blocks are
// reserved first (where the system can), so that a full disk is an error
// here rather than a fault when a page is written back.
func mapScratch(dir string, size int64) (data []byte, unmap func() error, err error) {
	if int64(int(size)) != size {
		return nil, nil, syscall.EFBIG
	}
	f, err := os.CreateTemp(dir, "hprofctl-scratch-*")
	if err != nil && dir != "" {
		f, err = os.CreateTemp("", "hprofctl-scratch-*")
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return nil, nil, err
	}
	if err := reserve(f, size); err != nil {
		return nil, nil, err
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
