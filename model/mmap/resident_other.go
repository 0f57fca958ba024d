//go:build !linux

package mmap

// FileResident cannot tell how much of the resident memory is mapped
// files outside Linux: false.
func FileResident() (int64, bool) { return 0, false }
