//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mmap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardTurnsFaultIntoError maps a file of three pages, cuts it to
// one, and reads the third page under Guard: an error, not a crash. The
// first page still reads.
func TestGuardTurnsFaultIntoError(t *testing.T) {
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 3*page)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := Map(f, int64(3*page))
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	if err := os.Truncate(path, int64(page)); err != nil {
		t.Fatal(err)
	}
	read := func(at int) (b byte, err error) {
		defer Guard(&err, "reading f")()
		return data[at], nil
	}
	if b, err := read(10); err != nil || b != 'x' {
		t.Fatalf("first page: %q, %v", b, err)
	}
	if _, err := read(2*page + 10); err == nil || !strings.Contains(err.Error(), "reading f: a fault") {
		t.Fatalf("third page of a file cut to one: %v, want a fault error", err)
	}
}
