//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"os"
	"syscall"
)

// lockTemp takes an exclusive advisory lock on a Writer's temporary file,
// held until the file is closed or its process ends, so that other
// writers can tell a running build's file from an abandoned one.
func lockTemp(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// unlocked reports whether no process holds the lock of the file at path.
func unlocked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// syncDir flushes dir's entries to disk, so that a rename in it survives a
// crash. Failure only weakens that promise, so it is not reported.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
