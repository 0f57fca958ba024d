package store

import (
	"bytes"
	"errors"
	"os"

	"github.com/hprofctl/hprofctl/model/mmap"
)

// mapFile maps the first size bytes of f read-only. Checks read f itself
// where the file is mapped, and the bytes in memory where mmap reads it;
// release unmaps the bytes and closes f.
func mapFile(f *os.File, size int64) (*mapping, error) {
	data, unmap, err := mmap.Map(f, size)
	if err != nil {
		return nil, err
	}
	m := &mapping{data: data, src: f, release: func() error { return errors.Join(unmap(), f.Close()) }}
	if !mmap.Supported {
		m.src = bytes.NewReader(data)
	}
	return m, nil
}
