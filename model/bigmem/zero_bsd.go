//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package bigmem

// zero makes the first n bytes of s zero for its next table.
func (s *scratch) zero(n int) { clear(s.data[:n]) }
