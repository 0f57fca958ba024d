package store

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

// Fingerprint identifies one state of a dump file cheaply: its size and a
// hash of sampled blocks, with its modification time for the record.
// Rewriting the dump changes the size or (almost surely) a sampled block:
// the first block holds the dump's header with the time it was taken.
// Touching it changes only the time, which SameContent ignores.
type Fingerprint struct {
	// Size is the file's size in bytes, as stored (compressed for a
	// compressed dump).
	Size int64
	// ModTime is the modification time, in nanoseconds since 1970 UTC.
	ModTime int64
	// Sample is the SHA-256 of the sampled blocks (see FingerprintFile).
	Sample [32]byte
}

// SameContent reports whether f and o describe the same content: the same
// size and sampled blocks, whatever their modification times.
func (f Fingerprint) SameContent(o Fingerprint) bool {
	return f.Size == o.Size && f.Sample == o.Sample
}

// Fingerprint sampling: sampleBlocks blocks of sampleBlockSize bytes, the
// first at the start of the file, the last ending at its end and the
// others evenly spaced between them. A file no larger than all the blocks
// together is hashed whole.
const (
	sampleBlockSize = 64 << 10
	sampleBlocks    = 18
)

// FingerprintFile fingerprints the dump at path. Take it before reading the
// dump to build an index, so that a dump that changes while the index is
// built leaves an index that is already stale. It returns an error
// wrapping ErrNoFile when path is not a regular file.
func FingerprintFile(path string) (Fingerprint, error) {
	// Stat before opening: opening a named pipe would wait for a writer.
	if st, err := os.Stat(path); err != nil {
		return Fingerprint{}, err
	} else if !st.Mode().IsRegular() {
		return Fingerprint{}, fmt.Errorf("%s: %w", path, ErrNoFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return Fingerprint{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Fingerprint{}, err
	}
	fp := Fingerprint{Size: st.Size(), ModTime: st.ModTime().UnixNano()}
	h := sha256.New()
	if offsets := sampleOffsets(fp.Size); offsets == nil {
		if _, err := io.Copy(h, io.NewSectionReader(f, 0, fp.Size)); err != nil {
			return Fingerprint{}, fmt.Errorf("%s: fingerprint: %w", path, err)
		}
	} else {
		buf := make([]byte, sampleBlockSize)
		for _, off := range offsets {
			if _, err := f.ReadAt(buf, off); err != nil {
				return Fingerprint{}, fmt.Errorf("%s: fingerprint at offset %d: %w", path, off, err)
			}
			h.Write(buf)
		}
	}
	h.Sum(fp.Sample[:0])
	return fp, nil
}

// sampleOffsets returns the offsets of the blocks FingerprintFile hashes in
// a file of size bytes, or nil when it hashes the whole file.
func sampleOffsets(size int64) []int64 {
	if size <= sampleBlocks*sampleBlockSize {
		return nil
	}
	offs := make([]int64, sampleBlocks)
	span := size - sampleBlockSize
	for i := range offs {
		offs[i] = span * int64(i) / (sampleBlocks - 1)
	}
	return offs
}
