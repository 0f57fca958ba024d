package bigmem

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// zeroChunk is how many pages zero asks the page cache about at a time.
const zeroChunk = 1 << 14

// zero makes the first n bytes of s zero for its next table, s mapped at
// offset at of the table. In the table's first clearHeld bytes, the
// pages the page cache still holds are cleared in place, at a minor
// fault and a clear each, a twentieth of what the first write to a page
// of a new scratch file costs; runs of pages it no longer holds (written
// back and reclaimed) are zeroed in the file instead
// (FALLOC_FL_ZERO_RANGE), so that nothing is read back from the disk
// only to be overwritten. The rest is dropped. Where the file system
// cannot zero a range, or the system does not say which pages it holds,
// the pages are cleared. The pages held are cleared on every processor,
// a stretch of zeroStretch bytes or more each: Make, which clears them,
// is called from one goroutine, with the others often idle.
func (s *scratch) zero(n, at int) {
	page := os.Getpagesize()
	held := min(n, max(0, clearHeld-at)/page*page)
	stretches := max(1, min(runtime.GOMAXPROCS(0), held/zeroStretch))
	jobs := make([]func(), stretches)
	for k := range jobs {
		from, to := held/page*k/stretches*page, held/page*(k+1)/stretches*page
		if k == stretches-1 {
			to = held
		}
		jobs[k] = func() { s.zeroHeld(from, to) }
	}
	sideBySide(jobs)
	s.drop(held, n)
}

// zeroStretch is the least of a spare file's pages zero clears on a
// goroutine of its own; tests lower it.
var zeroStretch = 16 << 20

// zeroHeld makes bytes [from, to) of s zero, from a multiple of the page
// size, as zero does within clearHeld.
func (s *scratch) zeroHeld(from, to int) {
	page := os.Getpagesize()
	vec := make([]byte, zeroChunk)
	for ; from < to; from += zeroChunk * page {
		end := min(to, from+zeroChunk*page)
		pages := (end - from + page - 1) / page
		if mincore(s.data[from:from+pages*page], vec[:pages]) != nil {
			clear(s.data[from:end])
			continue
		}
		for lo := 0; lo < pages; {
			cached := vec[lo]&1 != 0
			hi := lo + 1
			for hi < pages && (vec[hi]&1 != 0) == cached {
				hi++
			}
			a, b := from+lo*page, min(end, from+hi*page)
			if cached || unix.Fallocate(int(s.file.Fd()), unix.FALLOC_FL_ZERO_RANGE|unix.FALLOC_FL_KEEP_SIZE, int64(a), int64((hi-lo)*page)) != nil {
				clear(s.data[a:b])
			}
			lo = hi
		}
	}
}

// drop makes bytes [from, n) of s zero, from a multiple of the page
// size, for a table written at random (MakeRandom) or past clearHeld: the
// range is zeroed in the file (FALLOC_FL_ZERO_RANGE), which drops the
// pages the page cache holds, in whatever folios it holds them, instead
// of clearing them in place; the faults that follow make new pages. Where
// the file system cannot zero a range, the pages are cleared.
func (s *scratch) drop(from, n int) {
	if n <= from {
		return
	}
	page := os.Getpagesize()
	length := (n+page-1)/page*page - from
	if unix.Fallocate(int(s.file.Fd()), unix.FALLOC_FL_ZERO_RANGE|unix.FALLOC_FL_KEEP_SIZE, int64(from), int64(length)) != nil {
		clear(s.data[from:n])
	}
}

// mincore sets vec[i]'s lowest bit when the page cache holds page i of
// data, which is page-aligned (mincore(2)).
func mincore(data, vec []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(data))), uintptr(len(data)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return errno
	}
	return nil
}

// grow makes s at least size bytes long, a multiple of the page size,
// keeping what it holds: its file grows with reserved blocks (reserve),
// and the mapping moves where it cannot grow in place, without copying a
// page.
func (s *scratch) grow(size int) error {
	page := os.Getpagesize()
	size = (size + page - 1) / page * page
	if size <= len(s.data) {
		return nil
	}
	if err := reserve(s.file, int64(size)); err != nil {
		return err
	}
	data, err := unix.MremapPtr(unsafe.Pointer(unsafe.SliceData(s.data)), uintptr(len(s.data)), nil, uintptr(size), unix.MREMAP_MAYMOVE)
	if err != nil {
		return err
	}
	s.data = unsafe.Slice((*byte)(data), size)
	return nil
}
