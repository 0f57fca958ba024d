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

// lockBuild takes an exclusive advisory lock on the dump at path, held
// until unlock is called or the process ends: one build of its index at a
// time. When another process holds it, busy is called before waiting.
// Where the lock cannot be taken (a file system without flock, a dump that
// cannot be opened), nothing is locked.
func lockBuild(path string, busy func()) (unlock func()) {
	f, err := os.Open(path)
	if err != nil {
		return func() {}
	}
	fd := int(f.Fd())
	err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		busy()
		err = syscall.Flock(fd, syscall.LOCK_EX)
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() }
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
