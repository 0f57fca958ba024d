//go:build linux || darwin || freebsd

package main

import "golang.org/x/sys/unix"

// freeDisk returns the bytes an unprivileged process may still write on
// the file system of dir, and false where that cannot be told.
func freeDisk(dir string) (int64, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}

// writeBack writes every file's dirty pages to disk and waits for it
// (sync(2)), so that what is measured next does not wait behind them.
func writeBack() { unix.Sync() }
