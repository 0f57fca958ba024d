package store

import (
	"os"
	"syscall"
)

// openDirect opens path for writing past the page cache; nil when the
// file system cannot.
func openDirect(path string) *os.File {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return nil
	}
	return f
}
