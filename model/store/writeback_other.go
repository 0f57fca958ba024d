//go:build !linux

package store

import "os"

// startWriteback does nothing where the system has no way to start
// writing a file's pages without waiting for them: Commit's sync writes
// them.
func startWriteback(*os.File) {}
