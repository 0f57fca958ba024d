//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"os"
	"syscall"
)

// lockTemp takes an exclusive advisory lock on a Writer's temporary file
// at path, held until the file is closed or its process ends, so that
// other writers can tell a running build's file from an abandoned one. It
// reports whether path still names f once the lock is held: a sweeper
// (removeIfUnlocked) that took the lock first may have removed it, and
// then the writer must make another.
func lockTemp(f *os.File, path string) bool {
	if flockWait(f) != nil {
		return true // no locks here: nothing sweeps either
	}
	return sameFile(f, path)
}

// flockWait waits for an exclusive advisory lock on f, going on when a
// signal interrupts the wait (the Go runtime sends some of its own).
func flockWait(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// removeIfUnlocked removes the file at path when no process holds its
// lock, holding the lock itself meanwhile so that no writer can take the
// file over between the test and the removal. It reports whether it
// removed the file.
func removeIfUnlocked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && sameFile(f, path) {
		return os.Remove(path) == nil
	}
	return false
}

// lockFree reports whether no process holds the lock of the file at path.
func lockFree(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// sameFile reports whether path names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
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
		err = flockWait(f)
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() }
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
