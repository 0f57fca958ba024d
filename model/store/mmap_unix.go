//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. Checks read f itself;
// release unmaps the bytes and closes f.
func mapFile(f *os.File, size int64) (*mapping, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%d bytes do not fit in this machine's address space", size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &mapping{
		data:    data,
		src:     f,
		release: func() error { return errors.Join(syscall.Munmap(data), f.Close()) },
	}, nil
}
