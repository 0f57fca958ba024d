// Package mmap maps files read-only into memory: the index files that
// every heap command opens, and plain dumps that analyses read many
// objects of.
package mmap

import (
	"fmt"
	"runtime/debug"
)

// fits checks that size bytes can be addressed on this machine.
func fits(size int64) error {
	if size < 0 || int64(int(size)) != size {
		return fmt.Errorf("%d bytes do not fit in this machine's address space", size)
	}
	return nil
}

// Guard turns a fault on reading mapped bytes (the file was truncated
// after it was mapped: SIGBUS) into an error in *err, for the goroutine
// that defers it. It must be deferred directly:
//
//	defer mmap.Guard(&err, "reading the dump")()
func Guard(err *error, what string) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			*err = fmt.Errorf("%s: a fault on the mapped file (did it shrink?)", what)
		}
	}
}
