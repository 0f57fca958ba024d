// Package bigmem allocates the large tables of an index build (object
// ids, classes, references, the dominator computation's work arrays and
// results) within a memory budget. While the Go heap stays below the
// budget a table is an ordinary slice; past it, the table is a mapping of
// a scratch file that is unlinked as soon as it is made, so that the
// kernel pages the table to disk and back instead of the process holding
// it in anonymous memory, and nothing is left on disk whatever happens to
// the process. Where files cannot be mapped, or the mapping fails (no
// disk space), the table is an ordinary slice.
//
// A mapped table that is freed leaves its scratch file mapped, its pages
// in the page cache, for the next tables: clearing a page the page cache
// holds costs a twentieth of the first write to a page of a new file
// (whose blocks were reserved), and unmapping and deleting a file of
// dirty pages costs as much again. A table that no spare file holds alone
// takes several, mapped one after the other, and a new file only for
// what they lack. The scratch files left are released when the budget is
// set again (the build's end).
//
// The budget is process-wide, like the garbage collector's settings: for
// a program whose main work is one build at a time.
package bigmem

import (
	"cmp"
	"errors"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Number is what tables hold: plain numbers, which the garbage collector
// need not scan and a file can hold.
type Number interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int8 | ~int16 | ~int32 | ~int64
}

// MinBudget is the least budget a build is given: what stays on the Go
// heap whatever the budget (classes and their names, roots, threads, the
// small tables) needs about that much for the dumps this program meets.
const MinBudget = 64 << 20

// DefaultBudget is the budget of a build that names none, for a dump
// file of dumpBytes bytes (0: unknown): a third of the dump, at least
// MinBudget, and at most an eighth of the machine's memory. A build all
// on the heap holds about 1.2 times an uncompressed dump; within a third
// its own memory stays well under half the dump (what the budget does
// not hold, the garbage collector's slack and the small tables, adds a
// tenth or so), the page cache holding the rest of its tables. 0 (no
// bound) where neither size is known.
func DefaultBudget(dumpBytes int64) int64 {
	budget := PhysicalMemory() / 8
	if share := max(dumpBytes/3, MinBudget); dumpBytes > 0 && (budget == 0 || share < budget) {
		budget = share
	}
	return budget
}

// heapGrowth is how far, in percent, the Go heap grows past what is live
// before a collection during a build (model.LoadOptions.LeanGC's setting):
// the tables stay on the heap while what is live, grown by that much,
// fits the budget.
const heapGrowth = 20

// minMapped is the smallest table worth a mapping: smaller ones come from
// the Go heap unless they alone exceed the budget (which only a test's
// tiny budget makes them do).
const minMapped = 1 << 20

var (
	mu     sync.Mutex
	budget int64  // 0: no budget
	dir    string // where scratch files are made; "": the system's temporary directory
	// mapped holds every mapped table by the address of its first byte,
	// and mappedBytes their total size.
	mapped      = map[uintptr]mapping{}
	mappedBytes int64
	// filesBytes is the size of the mapped tables' scratch files, and
	// peakFiles the most it was. spare holds the scratch files of the
	// freed tables, for the tables made next, the largest first;
	// spareBytes is their size, kept within peakFiles less filesBytes.
	filesBytes, peakFiles int64
	spare                 []*scratch
	spareBytes            int64
	// spilledBytes are the tables made since the budget was set that
	// went to the Go heap past the budget because no scratch file could
	// be made for them, spillErr why the first could not.
	spilledBytes int64
	spillErr     error
	// heapMaking are the bytes of the tables Make is putting on the Go
	// heap right now: counted until they are made, so that tables made
	// side by side (the dominator tree's and the shortest paths' first
	// ones) do not each find the budget free.
	heapMaking int64
)

// mapping is a table mapped from scratch files: their bytes (the
// table's and those past it up to a page, or up to the end of the spare
// scratch files it was given) and the files, mapped in data in turn.
type mapping struct {
	data  []byte
	parts []*scratch
}

// SetBudget bounds the Go heap that tables may take to bytes (0: no
// bound), scratch files going to scratchDir (""; the system's temporary
// directory). It returns the function that restores the previous
// setting. The scratch files of the freed tables are released both times:
// they belong to the work of one budget.
func SetBudget(bytes int64, scratchDir string) (restore func()) {
	mu.Lock()
	defer mu.Unlock()
	prevBudget, prevDir := budget, dir
	budget, dir = bytes, scratchDir
	releaseSpare()
	spilledBytes, spillErr = 0, nil
	return func() {
		mu.Lock()
		defer mu.Unlock()
		budget, dir = prevBudget, prevDir
		releaseSpare()
	}
}

// DropSpare releases the scratch files of the tables freed so far, kept
// for the next tables: where work that makes few tables follows, the disk
// is worth more than the fresh pages the spare files would save those.
func DropSpare() {
	mu.Lock()
	defer mu.Unlock()
	releaseSpare()
}

// releaseSpare releases the spare scratch files, mu held. Unmapping
// their dirty pages and deleting the files takes some time, which no one
// waits for.
func releaseSpare() {
	if len(spare) == 0 {
		return
	}
	gone := spare
	spare, spareBytes, peakFiles = nil, 0, filesBytes
	go func() {
		for _, s := range gone {
			// A scratch file that cannot be released stays until the
			// process ends: nothing to do but go on.
			_ = s.release()
		}
	}()
}

// Budget returns the budget SetBudget set, 0 when there is none: for the
// work that sizes its own buffers (not tables) by it.
func Budget() int64 {
	mu.Lock()
	defer mu.Unlock()
	return budget
}

// Make returns a zeroed table of n Ts: a slice on the Go heap while the
// heap and the table fit the budget, else a mapped scratch file.
func Make[T Number](n int) []T {
	return makeTable[T](n, false)
}

// MakeRandom is Make for a table that will be written at random all over
// after it was first filled in runs (a forest that path compression
// rewrites). Where it is mapped, the system is told so (madvise
// MADV_RANDOM) before the table is touched, and the pages a spare scratch
// file held are dropped rather than cleared: the page cache then holds
// the table in single pages. Otherwise the faults that first touch it read
// ahead into large folios (up to 2 MiB), and every random write to a
// written-back folio marks each of its blocks dirty again and writes the
// whole folio back (at 32 GiB, in the semidominators' forest, 401 GiB
// dirtied in 946 s, against 114 GiB in 105 s in pages taken one by one).
func MakeRandom[T Number](n int) []T {
	return makeTable[T](n, true)
}

// makeTable is Make, and MakeRandom where random is set.
func makeTable[T Number](n int, random bool) []T {
	var zero T
	size := int64(n) * int64(unsafe.Sizeof(zero))
	mu.Lock()
	over := budget > 0 && size > 0 && (size >= minMapped || size > budget) && (heapBytes()+heapMaking+size)*(100+heapGrowth)/100 > budget
	scratch := dir
	making := !over && budget > 0 && size >= minMapped
	if making {
		heapMaking += size
	}
	mu.Unlock()
	if over {
		if data, ok := mapTable(scratch, size, random); ok {
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), n)
		}
	}
	table := make([]T, n)
	if making {
		mu.Lock()
		heapMaking -= size
		mu.Unlock()
	}
	return table
}

// mapTable returns size zeroed bytes of scratch files: the spare one
// that fits best, else the largest spare ones joined and a new one in dir
// for what they lack; false when no file could be mapped. random is
// MakeRandom's.
func mapTable(dir string, size int64, random bool) ([]byte, bool) {
	mu.Lock()
	parts, held := takeSpare(size)
	mu.Unlock()
	reused := len(parts)
	if held < size {
		page := int64(os.Getpagesize())
		s, err := mapScratch(dir, (size-held+page-1)/page*page)
		if err != nil {
			spill(size, parts, err)
			return nil, false
		}
		parts = append(parts, s)
	}
	data := parts[0].data
	if len(parts) > 1 {
		joined, err := joinScratch(parts)
		if err != nil {
			spill(size, parts, err)
			return nil, false
		}
		data = joined
	}
	clearParts(parts, reused, int(size), random)
	mu.Lock()
	defer mu.Unlock()
	mapped[uintptr(unsafe.Pointer(unsafe.SliceData(data)))] = mapping{data, parts}
	mappedBytes += size
	filesBytes += int64(len(data))
	peakFiles = max(peakFiles, filesBytes)
	trimSpare()
	return data[:size], true
}

// spill records that a table of size bytes goes to the Go heap because
// its scratch files could not be mapped (err), and keeps the spare ones
// it was given, parts, for the next tables.
func spill(size int64, parts []*scratch, err error) {
	mu.Lock()
	defer mu.Unlock()
	for _, p := range parts {
		keepSpare(p)
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		spilledBytes += size
		spillErr = cmp.Or(spillErr, err)
	}
}

// clearParts readies parts, mapped in turn, for a table of size bytes:
// the first reused of them were spare, and what the table takes of them
// is zeroed (dropped, for a table written at random); the new file that
// may follow reads zeros already. Every part starts within the table
// (takeSpare takes none past what the table needs). random is
// MakeRandom's. The parts are zeroed side by side, on every processor:
// the spare files joined for a table are often many small ones (the
// reading's chunks), each page of which takes a minor fault to clear,
// while Make is called from one goroutine with the others often idle.
func clearParts(parts []*scratch, reused, size int, random bool) {
	var zeroing []func()
	at := 0
	for k, p := range parts {
		n := min(len(p.data), size-at)
		switch {
		case k < reused && random:
			p.adviseRandom()
			p.drop(0, n)
		case k < reused:
			from := at
			zeroing = append(zeroing, func() { p.zero(n, from) })
		case random:
			p.adviseRandom()
		}
		at += len(p.data)
	}
	sideBySide(zeroing)
}

// sideBySide runs jobs on as many goroutines as there are processors,
// each taking the next job as it finishes one, and returns when all are
// done.
func sideBySide(jobs []func()) {
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	if workers <= 1 {
		for _, job := range jobs {
			job()
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := next.Add(1) - 1; k < int64(len(jobs)); k = next.Add(1) - 1 {
				jobs[k]()
			}
		})
	}
	wg.Wait()
}

// clearHeld is how many bytes at the start of a table the spare scratch
// files it is given are cleared in place, where the system says which of
// their pages the page cache holds (zero). Past it their pages are
// dropped: the pages of a table far larger than the dirty pages the
// kernel lets the page cache hold (a tenth of memory by default) would
// be written back, zeros, before the table's own writes reach them and
// dirty them again (at 32 GiB, perf's samples of the pages dirtied while
// the predecessor lists were filled, and of those the depth-first walk's
// tables dirtied, found about half of each dirtied again after such a
// write-back). Spare files are joined for a table only up to it: past
// it they would spare no first write to a page. Tests lower it.
var clearHeld = 256 << 20

// joinedFiles bounds the scratch files of a build that joins spare files
// for its tables: an eighth of the machine's memory (0, unknown: none
// joins). Within it the files' pages stay in the page cache, dirty, and
// a spare one's pages are cleared there; a build whose files outgrow it
// (at 32 GiB, the reading alone maps 20 GiB) writes its pages back and
// reads them again, and joining its spare files made it slower: on 2
// processors, in three builds within an hour, the depth-first search
// took 261-282 s and the predecessors 235-241 s with joins, 209 s and
// 201 s without.
var joinedFiles = PhysicalMemory() / 8

// maxParts is the most spare scratch files a table is given: each is a
// mapping of its own, and the system bounds their number (65,530 by
// default on Linux).
const maxParts = 1 << 12

// takeSpare takes spare scratch files for a table of size bytes out of
// the spare ones, mu held, and returns them and their size: the smallest
// one of at least size bytes, else, while the files with the table's
// take at most joinedFiles, the largest ones (at most maxParts) until
// they hold size bytes, or clearHeld, or none is left.
func takeSpare(size int64) (parts []*scratch, held int64) {
	best := -1
	for i, s := range spare {
		if int64(len(s.data)) >= size && (best < 0 || len(s.data) < len(spare[best].data)) {
			best = i
		}
	}
	if best >= 0 {
		s := spare[best]
		spare = slices.Delete(spare, best, best+1)
		spareBytes -= int64(len(s.data))
		return []*scratch{s}, int64(len(s.data))
	}
	if filesBytes+spareBytes+size > joinedFiles {
		return nil, 0
	}
	k := 0
	for k < len(spare) && k < maxParts && held < min(size, int64(clearHeld)) {
		held += int64(len(spare[k].data))
		k++
	}
	parts = slices.Clone(spare[:k])
	spare = slices.Delete(spare, 0, k)
	spareBytes -= held
	return parts, held
}

// keepSpare keeps s, whose table was freed, for the tables made next,
// mu held.
func keepSpare(s *scratch) {
	spare = append(spare, s)
	spareBytes += int64(len(s.data))
	slices.SortFunc(spare, func(a, b *scratch) int { return len(b.data) - len(a.data) })
	trimSpare()
}

// trimSpare releases the smallest spare scratch files while they and
// those of the mapped tables take more than the latter took at their
// most, mu held: the scratch files hold no more disk than without
// spares.
func trimSpare() {
	for filesBytes+spareBytes > peakFiles && len(spare) > 0 {
		gone := spare[len(spare)-1]
		spare = spare[:len(spare)-1]
		spareBytes -= int64(len(gone.data))
		// A scratch file that cannot be released stays until the
		// process ends: nothing to do but go on.
		_ = gone.release()
	}
}

// Free releases a table Make returned, which must not be used after it:
// a mapped one leaves its pages to the page cache and its scratch file
// to the next table that fits in it, one on the Go heap is left to the
// garbage collector.
func Free[T Number](table []T) {
	if cap(table) == 0 {
		return
	}
	table = table[:cap(table)]
	key := uintptr(unsafe.Pointer(unsafe.SliceData(table)))
	mu.Lock()
	m, ok := mapped[key]
	if ok {
		delete(mapped, key)
		var zero T
		mappedBytes -= int64(len(table)) * int64(unsafe.Sizeof(zero))
		filesBytes -= int64(len(m.data))
	}
	mu.Unlock()
	if !ok {
		return
	}
	for _, p := range m.parts {
		p.rest()
	}
	mu.Lock()
	for _, p := range m.parts {
		keepSpare(p)
	}
	mu.Unlock()
}

// Append appends values to table, a table Make returned (or nil), as the
// built-in append does; when table has no room left it is moved to a
// larger one from Make, and freed. It is for lists that grow to a size
// known only at the end, so that they honour the budget as the tables of
// a known size do.
func Append[T Number](table []T, values ...T) []T {
	n := len(table)
	if n+len(values) > cap(table) {
		table = grow(table, n+len(values))
	}
	table = table[:n+len(values)]
	copy(table[n:], values)
	return table
}

// AppendOne is Append of one value, for the loops that append values one
// at a time: it is inlined where it is called, all but the growth, and
// stores the value without a call to copy memory.
func AppendOne[T Number](table []T, value T) []T {
	if len(table) == cap(table) {
		table = grow(table, len(table)+1)
	}
	return append(table, value)
}

// grow returns table moved to a table with room for at least size
// values, its length unchanged.
func grow[T Number](table []T, size int) []T {
	n := len(table)
	newCap := growCap(cap(table), size)
	if grown, ok := growMapped(table, newCap); ok {
		return grown
	}
	grown := Make[T](newCap)[:n]
	copy(grown, table)
	Free(table)
	return grown
}

// growMapped returns table, a mapped table, grown to capacity newCap in
// its scratch file, which grows with it (its pages are neither copied
// nor written for the first time again); false when table is no table
// mapped from one scratch file or its file could not grow, table then
// unchanged. What lies past len(table) is not zeroed.
func growMapped[T Number](table []T, newCap int) ([]T, bool) {
	if cap(table) == 0 {
		return nil, false
	}
	var zero T
	key := uintptr(unsafe.Pointer(unsafe.SliceData(table)))
	oldSize, newSize := int64(cap(table))*int64(unsafe.Sizeof(zero)), int64(newCap)*int64(unsafe.Sizeof(zero))
	mu.Lock()
	defer mu.Unlock()
	m, ok := mapped[key]
	if !ok || len(m.parts) != 1 || m.parts[0].grow(int(newSize)) != nil {
		return nil, false
	}
	delete(mapped, key)
	data := m.parts[0].data
	mapped[uintptr(unsafe.Pointer(unsafe.SliceData(data)))] = mapping{data, m.parts}
	mappedBytes += newSize - oldSize
	filesBytes += int64(len(data) - len(m.data))
	peakFiles = max(peakFiles, filesBytes)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), newCap)[:len(table)], true
}

// growCap is the capacity a table of capacity old that must hold need
// elements grows to: twice as large while small, then by a quarter, as
// the built-in append grows slices.
func growCap(old, need int) int {
	grown := 2 * old
	if old >= 1<<16 {
		grown = old + old/4
	}
	return max(grown, need, 1<<8)
}

// Spilled returns the bytes of the tables made since the budget was set
// that are on the Go heap past the budget because no scratch file could
// be made for them (a full disk, a directory that takes no file), and why
// the first could not: 0 and nil when every table past the budget was
// mapped, or where the system maps no files.
func Spilled() (bytes int64, why error) {
	mu.Lock()
	defer mu.Unlock()
	return spilledBytes, spillErr
}

// MappedBytes returns the size of the tables mapped from scratch files
// now.
func MappedBytes() int64 {
	mu.Lock()
	defer mu.Unlock()
	return mappedBytes
}

// heapBytes returns the bytes of the Go heap's objects, live or not yet
// collected.
func heapBytes() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// heapFreeBytes returns the bytes of the Go heap that are free and not
// yet returned to the system.
func heapFreeBytes() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}
