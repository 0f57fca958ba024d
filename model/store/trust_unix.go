//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ownedBySafe reports whether uid may own what this process trusts: it
// is the process's effective user or root.
func ownedBySafe(uid uint32) bool {
	return uid == 0 || int(uid) == os.Geteuid()
}

// ownedByMe reports whether this process's user owns the file st
// describes.
func ownedByMe(st fs.FileInfo) bool {
	uid, ok := owner(st)
	return ok && int(uid) == os.Geteuid()
}

// untrustedFile says why the opened index file described by st must not
// be trusted, or returns nil: it must be owned by this process's user or
// root, and lie in a directory others cannot write or replace
// (untrustedDir).
func untrustedFile(path string, st fs.FileInfo) error {
	if uid, ok := owner(st); ok && !ownedBySafe(uid) {
		return fmt.Errorf("it belongs to user %d, not to this user (%d) or root", uid, os.Geteuid())
	}
	return untrustedDir(filepath.Dir(path))
}

// untrustedDir says why files in dir could be planted or replaced by
// another user, or returns nil. dir (with symbolic links resolved) and
// every directory above it must be owned by this process's user or root,
// and none may be writable by its group or others unless it has the
// sticky bit (then others may add files but not remove or rename ours,
// and a file of another user is refused by its owner).
func untrustedDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return fmt.Errorf("its directory cannot be resolved: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("directory %s: %w", d, err)
		}
		if uid, ok := owner(st); ok && !ownedBySafe(uid) {
			return fmt.Errorf("directory %s belongs to user %d, who could replace it", d, uid)
		}
		if st.Mode().Perm()&0o022 != 0 && st.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("directory %s (mode %04o) is writable by others and has no sticky bit", d, st.Mode().Perm())
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

// unreplaceable says why this process must not rename a file over the
// one at path, or returns nil (also when there is none): in a directory
// with the sticky bit, where users share a place, only a file of this
// user is replaced (others could refuse the rename, and root leaves
// other users' files alone all the same).
func unreplaceable(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil || dir.Mode()&fs.ModeSticky == 0 || ownedByMe(st) {
		return nil
	}
	uid, _ := owner(st)
	return fmt.Errorf("user %d's file %s is there, in a directory with the sticky bit", uid, path)
}

// owner returns the user that owns the file st describes.
func owner(st fs.FileInfo) (uint32, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return s.Uid, true
}

// group returns the group that owns the file st describes, or -1.
func group(st fs.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Gid)
	}
	return -1
}
