// Package mmap maps files read-only into memory: the index files that
// every heap command opens.
package mmap

import "fmt"

// fits checks that size bytes can be addressed on this machine.
func fits(size int64) error {
	if size < 0 || int64(int(size)) != size {
		return fmt.Errorf("%d bytes do not fit in this machine's address space", size)
	}
	return nil
}
