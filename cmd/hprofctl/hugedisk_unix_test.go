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
