//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

import "os"

// reserve makes f size bytes long; the blocks are allocated as pages are
// written back.
func reserve(f *os.File, size int64) error { return f.Truncate(size) }
