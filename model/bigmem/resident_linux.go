package bigmem

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes returns the process's resident memory and the part of it
// that is shared (file pages: the mapped tables, the program's code), from
// /proc/self/statm.
func residentBytes() (total, shared int64, ok bool) {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, false
	}
	fields := bytes.Fields(statm)
	if len(fields) < 3 {
		return 0, 0, false
	}
	resident, err1 := strconv.ParseInt(string(fields[1]), 10, 64)
	sharedPages, err2 := strconv.ParseInt(string(fields[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	page := int64(os.Getpagesize())
	return resident * page, sharedPages * page, true
}
