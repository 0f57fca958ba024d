package mmap

import "syscall"

// populate asks MapRange's mappings to be filled at once, not page by
// page as they are read.
const populate = syscall.MAP_POPULATE

// Release drops data, mapped by Map or MapRange, from the process's
// resident memory: the kernel's page cache keeps the file's pages, and a
// later read maps them again.
func Release(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	return syscall.Madvise(data, syscall.MADV_DONTNEED)
}
