package bigmem

import (
	"errors"
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// TestZeroEvicted: zero clears a scratch file's pages that the page cache
// holds and zeroes in the file those it no longer holds, reading none
// back; on one goroutine, and with zeroStretch lowered so that two (on
// two processors or more) share the pages, the second's stretch ending
// within a page.
func TestZeroEvicted(t *testing.T) {
	for _, stretch := range []int{zeroStretch, 1 << 20} {
		t.Run(fmt.Sprintf("stretch=%d", stretch), func(t *testing.T) {
			defer func(z int) { zeroStretch = z }(zeroStretch)
			zeroStretch = stretch
			zeroHalfEvicted(t)
		})
	}
}

// zeroHalfEvicted is TestZeroEvicted under the zeroStretch set.
func zeroHalfEvicted(t *testing.T) {
	const size = 4 << 20
	s, err := mapScratch(t.TempDir(), size)
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	for i := range s.data {
		s.data[i] = byte(i | 1)
	}
	// Write the second half back and evict it from the page cache: the
	// first half stays held.
	half := s.data[size/2:]
	if err := unix.Msync(half, unix.MS_SYNC); err != nil {
		t.Fatal(err)
	}
	if err := unix.Madvise(half, unix.MADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(s.file.Fd()), size/2, size/2, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	vec := make([]byte, size/4096)
	if err := mincore(s.data, vec); err != nil {
		t.Fatal(err)
	}
	if vec[0]&1 == 0 || vec[len(vec)-1]&1 != 0 {
		t.Logf("the page cache holds the first page: %v, the last: %v (wanted yes and no)", vec[0]&1 != 0, vec[len(vec)-1]&1 != 0)
	}
	s.zero(size-100, 0)
	for i, b := range s.data[:size-100] {
		if b != 0 {
			t.Fatalf("byte %d is %#x after zero, want 0", i, b)
		}
	}
	for i, b := range s.data[size-100:] {
		if want := byte((size - 100 + i) | 1); b != want && b != 0 {
			t.Fatalf("byte %d past the zeroed range is %#x, want %#x (or 0: a page is zeroed whole)", size-100+i, b, want)
		}
	}
}

// TestSpilledWhenNoScratchFile: a table past the budget whose scratch file
// cannot get its blocks (here the file size limit refuses them, as a full
// disk would) is made on the Go heap, and Spilled says how much and why,
// until the budget is set again.
func TestSpilledWhenNoScratchFile(t *testing.T) {
	var limit unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	restore := SetBudget(1, t.TempDir())
	defer restore()
	tight := limit
	tight.Cur = 1 << 20
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &tight); err != nil {
		t.Skip("the file size limit cannot be lowered here:", err)
	}
	table := Make[uint64](1 << 20)
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	if len(table) != 1<<20 || table[len(table)-1] != 0 {
		t.Fatalf("table of %d values, last %d: want 1<<20 zeroes", len(table), table[len(table)-1])
	}
	if MappedBytes() != 0 {
		t.Errorf("MappedBytes = %d, want 0: no file could take the table", MappedBytes())
	}
	bytes, why := Spilled()
	if bytes != 8<<20 || !errors.Is(why, unix.EFBIG) {
		t.Errorf("Spilled() = %d, %v; want %d and EFBIG", bytes, why, 8<<20)
	}
	Free(table)
	defer SetBudget(1, t.TempDir())()
	if bytes, why := Spilled(); bytes != 0 || why != nil {
		t.Errorf("after SetBudget, Spilled() = %d, %v; want 0, nil", bytes, why)
	}
}

// TestZeroDropsPastClearHeld: zero clears in place only the first
// clearHeld bytes of a scratch file whose pages the page cache holds; it
// drops the pages past them, which read as zeros and are no longer held.
func TestZeroDropsPastClearHeld(t *testing.T) {
	const size = 4 << 20
	defer func(held int) { clearHeld = held }(clearHeld)
	clearHeld = size / 4
	s, err := mapScratch(t.TempDir(), size)
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	if unix.Fallocate(int(s.file.Fd()), unix.FALLOC_FL_ZERO_RANGE|unix.FALLOC_FL_KEEP_SIZE, 0, 4096) != nil {
		t.Skip("the file system zeroes no range: zero clears every page")
	}
	for i := range s.data {
		s.data[i] = byte(i | 1)
	}
	s.zero(size, 0)
	for i, b := range s.data {
		if b != 0 {
			t.Fatalf("byte %d is %#x after zero, want 0", i, b)
		}
	}
	// Reading the pages above faulted the dropped ones in again, as
	// zeros: drop them from the process and look before touching them.
	for i := range s.data {
		s.data[i] = byte(i | 1)
	}
	s.zero(size, 0)
	vec := make([]byte, size/4096)
	if err := mincore(s.data, vec); err != nil {
		t.Fatal(err)
	}
	for p, v := range vec {
		if held := v&1 != 0; held != (p < len(vec)/4) {
			t.Fatalf("page %d held: %v after zero, want %v (cleared in place below clearHeld, dropped past it)", p, held, p < len(vec)/4)
		}
	}
}
