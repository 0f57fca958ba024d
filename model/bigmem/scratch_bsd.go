//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

import "errors"

// zero makes the first n bytes of s zero for its next table.
func (s *scratch) zero(n int) { clear(s.data[:n]) }

// grow fails: these systems move no mapping.
func (s *scratch) grow(int) error { return errors.ErrUnsupported }
