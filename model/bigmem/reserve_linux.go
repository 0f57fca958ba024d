package bigmem

import (
	"os"
	"syscall"
)

// reserve gives f size bytes of disk blocks.
func reserve(f *os.File, size int64) error {
	return syscall.Fallocate(int(f.Fd()), 0, 0, size)
}
