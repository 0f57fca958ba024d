//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import "os"

// lockTemp does nothing where advisory locks are not used; the file is
// never swept, so it is still there.
func lockTemp(*os.File, string) bool { return true }

// lockBuild locks nothing where advisory locks are not used.
func lockBuild(string, func()) func() { return func() {} }

// removeIfUnlocked removes nothing: without locks a running build's
// temporary file cannot be told from an abandoned one.
func removeIfUnlocked(string) bool { return false }

// lockFree reports false: a running build cannot be told from a dead one.
func lockFree(string) bool { return false }

// syncDir does nothing: directories cannot be synced here.
func syncDir(string) {}
