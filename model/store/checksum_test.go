package store

import (
	"hash/crc32"
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
	defer func(old int) { checksumPiece = old }(checksumPiece)
	checksumPiece = 1000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	data := make([]byte, 20_500)
	rand.NewChaCha8([32]byte{7}).Read(data)
	for _, n := range []int{0, 1, 999, 1000, 1001, 2000, 7777, 20_000, 20_500} {
		got, err := checksum(data[:n])
		if want := crc32.Checksum(data[:n], castagnoli); got != want || err != nil {
			t.Errorf("%d bytes: %#08x, %v; want %#08x", n, got, err, want)
		}
	}
}
