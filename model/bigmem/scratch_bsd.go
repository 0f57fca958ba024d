//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

import "errors"

// zero makes the first n bytes of s zero for its next table.
func (s *scratch) zero(n, _ int) { clear(s.data[:n]) }

// drop makes bytes [from, n) of s zero for a table written at random
// (MakeRandom): these systems keep no large folios to drop.
func (s *scratch) drop(from, n int) { clear(s.data[from:n]) }

// grow fails: these systems move no mapping.
func (s *scratch) grow(int) error { return errors.ErrUnsupported }
