//go:build !linux

package bigmem

// residentBytes is unknown here.
func residentBytes() (total, shared int64, ok bool) { return 0, 0, false }
