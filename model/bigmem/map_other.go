//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bigmem

import (
	"errors"
	"fmt"
)

// A scratch is a mapped scratch file; there are none on this system.
type scratch struct{ data []byte }

// mapScratch fails where files are not mapped: tables then come from the
// Go heap.
func mapScratch(string, int64) (*scratch, error) {
	return nil, fmt.Errorf("bigmem: no file mappings on this system: %w", errors.ErrUnsupported)
}

func joinScratch([]*scratch) ([]byte, error) { return nil, errors.ErrUnsupported }

func (s *scratch) release() error { return nil }

func (s *scratch) rest() {}

func (s *scratch) adviseRandom() {}

func (s *scratch) drop(from, n int) { clear(s.data[from:n]) }

func (s *scratch) zero(n, _ int) { clear(s.data[:n]) }

func (s *scratch) grow(int) error { return errors.ErrUnsupported }
