package store

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// reseal recomputes the checksums of the index bytes b wherever its header
// and table let it find them, so that a test's change of b reaches the
// checks behind the checksums.
func reseal(b []byte) {
	if len(b) < headerSize {
		return
	}
	size := uint64(len(b))
	table := binary.LittleEndian.Uint64(b[hdrTableOffset:])
	n := uint64(binary.LittleEndian.Uint32(b[hdrSections:]))
	if n <= maxSections && table <= size && n*entrySize <= size-table {
		t := b[table : table+n*entrySize]
		for i := range n {
			e := t[i*entrySize : (i+1)*entrySize]
			off, length := binary.LittleEndian.Uint64(e[entOffset:]), binary.LittleEndian.Uint64(e[entLength:])
			if off <= size && length <= size-off {
				binary.LittleEndian.PutUint32(e[entCRC:], crc32.Checksum(b[off:off+length], castagnoli))
			}
		}
		binary.LittleEndian.PutUint32(b[hdrTableCRC:], crc32.Checksum(t, castagnoli))
	}
	binary.LittleEndian.PutUint32(b[hdrCRC:], crc32.Checksum(b[:hdrCRC], castagnoli))
}

// FuzzOpen opens arbitrary bytes as an index and reads every section, as
// they are and with their checksums made right (so that the checks behind
// the checksums are reached). Nothing may panic; every fault must be an
// *Error; an index that opens must read in full or report an *Error.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	for _, seed := range fuzzSeeds(f, dir) {
		f.Add(seed)
	}
	path := filepath.Join(dir, "index")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, resealed := range []bool{false, true} {
			if resealed {
				data = append([]byte(nil), data...)
				reseal(data)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			err := openAndRead(path, testID)
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("resealed %v: error %v (%T), want an *Error", resealed, err, err)
			}
		}
	})
}

// fuzzSeeds returns FuzzOpen's seeds: the sample index, a small index of
// each kind of section, their headers alone, the magic and nothing.
func fuzzSeeds(f *testing.F, dir string) [][]byte {
	full := filepath.Join(dir, "full")
	newSample().write(f, full, testID)
	small := filepath.Join(dir, "small")
	w, err := Create(small, testID, 0o644)
	if err != nil {
		f.Fatal(err)
	}
	defer w.Abort()
	err = errors.Join(
		WriteArray(w, "a", []uint16{1, 2, 3}),
		w.WriteStrings("s", []string{"ab", "", "c"}),
		WriteArray(w, "b", []int64{-1}),
		w.WriteBlob("blob", []byte("{}")),
		w.Commit(),
	)
	if err != nil {
		f.Fatal(err)
	}
	var seeds [][]byte
	for _, path := range []string{full, small} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b, b[:headerSize])
	}
	return append(seeds, []byte(magic), []byte{})
}
