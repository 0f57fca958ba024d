package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's dirty pages to
// disk, without waiting for them (sync_file_range with
// SYNC_FILE_RANGE_WRITE): a sync later then has less to wait for. A
// request that fails changes nothing but that wait.
func startWriteback(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) {
			unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
		})
	}
}
