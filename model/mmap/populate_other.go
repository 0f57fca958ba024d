//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package mmap

// populate is 0 where mappings cannot be filled at once.
const populate = 0
