//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package mmap

// populate is 0 where mappings cannot be filled at once.
const populate = 0

// Release does nothing on these systems: the mapped pages stay until the
// kernel wants the memory back.
func Release(data []byte) error { return nil }
