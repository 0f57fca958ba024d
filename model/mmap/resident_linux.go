package mmap

import (
	"bytes"
	"os"
	"strconv"
)

// FileResident is how much of the process's resident memory is pages of
// mapped files (and shared memory): the third field of /proc/self/statm.
// false where it cannot be read.
func FileResident() (int64, bool) {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	fields := bytes.Fields(data)
	if len(fields) < 3 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(fields[2]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
