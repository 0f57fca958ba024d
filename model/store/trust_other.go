//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import "io/fs"

// untrustedFile returns nil: where files have no Unix owner and mode, the
// operating system's access control is left to protect the index.
func untrustedFile(string, fs.FileInfo) error { return nil }

// untrustedDir returns nil, as untrustedFile does.
func untrustedDir(string) error { return nil }

// unreplaceable returns nil: a failed rename is reported when it happens.
func unreplaceable(string) error { return nil }

// group returns -1: files have no Unix group here.
func group(fs.FileInfo) int { return -1 }

// ownedByMe reports true: files have no Unix owner here.
func ownedByMe(fs.FileInfo) bool { return true }
