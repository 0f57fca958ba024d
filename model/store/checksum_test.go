package store

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestCombine checks the combination of two pieces' checksums against the
// checksum of both, at many split points.
func TestCombine(t *testing.T) {
	data := make([]byte, 5000)
	rand.NewChaCha8([32]byte{9}).Read(data)
	whole := crc32.Checksum(data, castagnoli)
	for split := 0; split <= len(data); split += 37 {
		a := crc32.Checksum(data[:split], castagnoli)
		b := crc32.Checksum(data[split:], castagnoli)
		if got := mulModP(xPow8n(uint64(len(data)-split)), a) ^ b; got != whole {
			t.Fatalf("split at %d: combined %#08x, want %#08x", split, got, whole)
		}
	}
}

// TestParallelChecksum computes checksums in small pieces on several
// goroutines and compares them with hash/crc32's.
func TestParallelChecksum(t *testing.T) {
	defer func(old int64) { checksumPiece = old }(checksumPiece)
	checksumPiece = 1000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	data := make([]byte, 20_600)
	rand.NewChaCha8([32]byte{7}).Read(data)
	src := bytes.NewReader(data)
	for _, c := range []struct{ off, n int }{{0, 0}, {0, 1}, {5, 999}, {0, 1000}, {3, 1001}, {0, 2000}, {17, 7777}, {0, 20_000}, {100, 20_500}} {
		got, err := checksumAt(src, int64(c.off), int64(c.n), nil)
		if want := crc32.Checksum(data[c.off:c.off+c.n], castagnoli); got != want || err != nil {
			t.Errorf("%d bytes at %d: %#08x, %v; want %#08x", c.n, c.off, got, err, want)
		}
	}
	// A piece that cannot be read fails the whole.
	if _, err := checksumAt(src, 1000, 20_000, nil); !errors.Is(err, io.EOF) {
		t.Errorf("reading past the end: %v, want io.EOF", err)
	}
}
