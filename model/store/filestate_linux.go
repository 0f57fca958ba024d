package store

import (
	"io/fs"
	"syscall"
)

// stateOf returns the state of the file st describes.
func stateOf(st fs.FileInfo) (fileState, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileState{}, false
	}
	return fileState{
		dev:   s.Dev,
		ino:   s.Ino,
		size:  s.Size,
		mtime: s.Mtim.Nano(),
		ctime: s.Ctim.Nano(),
	}, true
}
