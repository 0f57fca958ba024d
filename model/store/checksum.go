package store

import (
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// checksumPiece is the size of the pieces a large section's checksum is
// computed in, one piece per core at a time. The pieces' checksums are
// combined into the section's. Tests lower it.
var checksumPiece int64 = 16 << 20

// readBuffer is the size of the reads a checksum is computed from.
const readBuffer = 1 << 20

// inspector looks at bytes of a section as they are read for its
// checksum: b starts at byte at of the section, at a multiple of 8.
type inspector func(b []byte, at int64) error

// checksumAt returns the CRC-32C of the n bytes at off in src, read with
// src.ReadAt in pieces on up to GOMAXPROCS goroutines, and hands them to
// inspect (when not nil) as they are read.
func checksumAt(src io.ReaderAt, off, n int64, inspect inspector) (uint32, error) {
	pieces := int((n + checksumPiece - 1) / checksumPiece)
	workers := min(runtime.GOMAXPROCS(0), pieces)
	if workers <= 1 {
		return checksumPieceAt(src, off, n, 0, make([]byte, min(n, readBuffer)), inspect)
	}
	sums := make([]uint32, pieces)
	errs := make([]error, pieces)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, readBuffer)
			for {
				i := int(next.Add(1) - 1)
				if i >= pieces || failed.Load() {
					return
				}
				start := int64(i) * checksumPiece
				sums[i], errs[i] = checksumPieceAt(src, off+start, min(checksumPiece, n-start), start, buf, inspect)
				if errs[i] != nil {
					failed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	sum := sums[0]
	shift := xPow8n(uint64(checksumPiece))
	for i := 1; i < pieces; i++ {
		if i == pieces-1 {
			shift = xPow8n(uint64(n - int64(i)*checksumPiece))
		}
		sum = mulModP(shift, sum) ^ sums[i]
	}
	return sum, nil
}

// checksumPieceAt returns the CRC-32C of the n bytes at off in src, read
// through buf, which lie at byte at of their section; inspect, when not
// nil, sees them as they are read.
func checksumPieceAt(src io.ReaderAt, off, n, at int64, buf []byte, inspect inspector) (uint32, error) {
	var sum uint32
	for done := int64(0); done < n; {
		b := buf[:min(int64(len(buf)), n-done)]
		if _, err := src.ReadAt(b, off+done); err != nil {
			return 0, fmt.Errorf("read %d bytes at offset %d: %w", len(b), off+done, err)
		}
		sum = crc32.Update(sum, castagnoli, b)
		if inspect != nil {
			if err := inspect(b, at+done); err != nil {
				return 0, err
			}
		}
		done += int64(len(b))
	}
	return sum, nil
}

// The checksums of two pieces combine into the checksum of both: with
// polynomials over GF(2) in the bit-reflected form of hash/crc32 (bit 31
// holds the coefficient of x^0), crc(AB) = crc(A)·x^(8·len(B)) mod P +
// crc(B), P being the Castagnoli polynomial.

// mulModP returns a·b mod P.
func mulModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ crc32.Castagnoli
		} else {
			b >>= 1
		}
	}
	return p
}

// xPow8n returns x^(8n) mod P: shifting a checksum over n bytes.
func xPow8n(n uint64) uint32 {
	p := uint32(1) << 31      // 1
	square := uint32(1) << 23 // x^8, then x^16, x^32, ...
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			p = mulModP(p, square)
		}
		square = mulModP(square, square)
	}
	return p
}
