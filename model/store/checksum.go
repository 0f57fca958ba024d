package store

import (
	"errors"
	"hash/crc32"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// checksumPiece is the size of the pieces a large section's checksum is
// computed in, one piece per core at a time. The pieces' checksums are
// combined into the section's. Tests lower it.
var checksumPiece = 16 << 20

// errFault is returned by checksum when reading b faulted (a mapped file
// cut short under it).
var errFault = errors.New("memory fault")

// checksum returns the CRC-32C of b, computed on up to GOMAXPROCS cores
// for a large b. A fault reading b gives errFault instead of a crash.
func checksum(b []byte) (uint32, error) {
	pieces := (len(b) + checksumPiece - 1) / checksumPiece
	workers := min(runtime.GOMAXPROCS(0), pieces)
	if workers <= 1 {
		return checksumGuarded(b)
	}
	sums := make([]uint32, pieces)
	var next atomic.Int64
	var faulted atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= pieces || faulted.Load() {
					return
				}
				sum, err := checksumGuarded(b[i*checksumPiece : min((i+1)*checksumPiece, len(b))])
				if err != nil {
					faulted.Store(true)
					return
				}
				sums[i] = sum
			}
		}()
	}
	wg.Wait()
	if faulted.Load() {
		return 0, errFault
	}
	sum := sums[0]
	shift := xPow8n(uint64(checksumPiece))
	for i := 1; i < pieces; i++ {
		if i == pieces-1 {
			shift = xPow8n(uint64(len(b) - i*checksumPiece))
		}
		sum = mulModP(shift, sum) ^ sums[i]
	}
	return sum, nil
}

// checksumGuarded returns the CRC-32C of b, or errFault when reading b
// faults.
func checksumGuarded(b []byte) (sum uint32, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = errFault
		}
	}()
	return crc32.Checksum(b, castagnoli), nil
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
