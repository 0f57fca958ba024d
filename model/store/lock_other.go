//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import "os"

// lockTemp does nothing where advisory locks are not used.
func lockTemp(*os.File) {}

// lockBuild locks nothing where advisory locks are not used.
func lockBuild(string, func()) func() { return func() {} }

// unlocked reports false: without locks a running build's temporary file
// cannot be told from an abandoned one, so none is removed.
func unlocked(string) bool { return false }

// syncDir does nothing: directories cannot be synced here.
func syncDir(string) {}
