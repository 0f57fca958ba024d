//go:build !linux

package store

import "io/fs"

// stateOf reports false: the ledger is kept on Linux only, where a
// file's status change time is to the nanosecond and cannot be set.
func stateOf(fs.FileInfo) (fileState, bool) { return fileState{}, false }
