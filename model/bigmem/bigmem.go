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
// The budget is process-wide, like the garbage collector's settings: for
// a program whose main work is one build at a time.
package bigmem

import (
	"runtime/metrics"
	"sync"
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
// file of dumpBytes bytes (0: unknown): two fifths of the dump, at least
// MinBudget, and at most an eighth of the machine's memory. A build all
// on the heap holds about 1.2 times an uncompressed dump; within two
// fifths its own memory stays near half the dump, the page cache holding
// the rest of its tables. 0 (no bound) where neither size is known.
func DefaultBudget(dumpBytes int64) int64 {
	budget := PhysicalMemory() / 8
	if share := max(dumpBytes*2/5, MinBudget); dumpBytes > 0 && (budget == 0 || share < budget) {
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
)

// mapping is a table mapped from a scratch file: its bytes, and the
// function that unmaps them.
type mapping struct {
	data  []byte
	unmap func() error
}

// SetBudget bounds the Go heap that tables may take to bytes (0: no
// bound), scratch files going to scratchDir (""; the system's temporary
// directory). It returns the function that restores the previous
// setting.
func SetBudget(bytes int64, scratchDir string) (restore func()) {
	mu.Lock()
	defer mu.Unlock()
	prevBudget, prevDir := budget, dir
	budget, dir = bytes, scratchDir
	return func() {
		mu.Lock()
		defer mu.Unlock()
		budget, dir = prevBudget, prevDir
	}
}

// Make returns a zeroed table of n Ts: a slice on the Go heap while the
// heap and the table fit the budget, else a mapped scratch file.
func Make[T Number](n int) []T {
	var zero T
	size := int64(n) * int64(unsafe.Sizeof(zero))
	mu.Lock()
	over := budget > 0 && size > 0 && (size >= minMapped || size > budget) && (heapBytes()+size)*(100+heapGrowth)/100 > budget
	scratch := dir
	mu.Unlock()
	if over {
		if data, unmap, err := mapScratch(scratch, size); err == nil {
			mu.Lock()
			mapped[uintptr(unsafe.Pointer(unsafe.SliceData(data)))] = mapping{data, unmap}
			mappedBytes += size
			mu.Unlock()
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), n)
		}
	}
	return make([]T, n)
}

// Free releases a table Make returned, which must not be used after it:
// a mapped one is unmapped at once, one on the Go heap is left to the
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
	}
	mu.Unlock()
	if ok {
		// An unmap that fails leaves the mapping in place: nothing to
		// do but keep going.
		_ = m.unmap()
	}
}

// Append appends values to table, a table Make returned (or nil), as the
// built-in append does; when table has no room left it is moved to a
// larger one from Make, and freed. It is for lists that grow to a size
// known only at the end, so that they honour the budget as the tables of
// a known size do.
func Append[T Number](table []T, values ...T) []T {
	n := len(table)
	if n+len(values) > cap(table) {
		grown := Make[T](growCap(cap(table), n+len(values)))[:n]
		copy(grown, table)
		Free(table)
		table = grown
	}
	table = table[:n+len(values)]
	copy(table[n:], values)
	return table
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
