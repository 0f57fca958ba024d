//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bigmem

import "errors"

// mapScratch fails where files are not mapped: tables then come from the
// Go heap.
func mapScratch(string, int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("bigmem: no file mappings on this system")
}
