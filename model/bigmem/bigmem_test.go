package bigmem

import (
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestMakeOverBudget: past the budget a table is mapped from a scratch
// file that is gone from the directory at once, holds what is written to
// it, and is released by Free; within it (or below minMapped) a table is
// an ordinary slice.
func TestMakeOverBudget(t *testing.T) {
	dir := t.TempDir()
	defer SetBudget(1, dir)()
	n := 3 * minMapped / 4
	table := Make[uint32](n)
	if len(table) != n || MappedBytes() != int64(4*n) {
		t.Fatalf("len %d, mapped %d bytes; want %d and %d", len(table), MappedBytes(), n, 4*n)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("scratch files left in the directory: %v", left)
	}
	for i := range table {
		if table[i] != 0 {
			t.Fatalf("entry %d is %d, want 0", i, table[i])
		}
		table[i] = uint32(i * 7)
	}
	for i := range table {
		if table[i] != uint32(i*7) {
			t.Fatalf("entry %d reads %d, want %d", i, table[i], i*7)
		}
	}
	Free(table)
	if MappedBytes() != 0 {
		t.Errorf("mapped %d bytes after Free, want 0", MappedBytes())
	}
	small := Make[uint64](16)
	Free(small)
	if MappedBytes() != 0 {
		t.Errorf("a small table was mapped")
	}
}

// TestMakeWithinBudget: no budget, no mapping.
func TestMakeWithinBudget(t *testing.T) {
	defer SetBudget(0, t.TempDir())()
	table := Make[int64](minMapped)
	if MappedBytes() != 0 {
		t.Errorf("mapped %d bytes without a budget", MappedBytes())
	}
	table[len(table)-1] = -1
	Free(table)
}

// TestAppendOverBudget: a list grown by Append and AppendOne past the
// budget moves to a mapped table, which grows in its scratch file, keeps
// every value in order, and leaves only its last table mapped.
func TestAppendOverBudget(t *testing.T) {
	defer SetBudget(1, t.TempDir())()
	var list []uint32
	n := minMapped // 4 MiB of uint32: grown through mapped tables
	for i := range n {
		if i%2 == 0 {
			list = Append(list, uint32(i*3))
		} else {
			list = AppendOne(list, uint32(i*3))
		}
	}
	list = Append(list, 1, 2)
	if len(list) != n+2 || list[n] != 1 || list[n+1] != 2 {
		t.Fatalf("len %d, tail %v; want %d and [1 2]", len(list), list[n:], n+2)
	}
	for i := range n {
		if list[i] != uint32(i*3) {
			t.Fatalf("entry %d reads %d, want %d", i, list[i], i*3)
		}
	}
	if got, want := MappedBytes(), int64(4*cap(list)); got != want {
		t.Errorf("mapped %d bytes, want %d: the last table's only", got, want)
	}
	mu.Lock()
	grownInPlace := len(spare) == 0
	mu.Unlock()
	if runtime.GOOS == "linux" && !grownInPlace {
		t.Errorf("the list left spare scratch files: it did not grow in its own")
	}
	Free(list)
	if MappedBytes() != 0 {
		t.Errorf("mapped %d bytes after Free, want 0", MappedBytes())
	}
}

// TestBoundResident: with a limit below the process's anonymous memory
// and collected garbage on the Go heap, the heap's free pages go back to
// the system within a few checks, and the peak seen is at least what the
// process held.
func TestBoundResident(t *testing.T) {
	total, shared, ok := residentBytes()
	if !ok {
		t.Skip("the system does not report resident memory")
	}
	garbage := make([]byte, 64<<20)
	for i := range garbage {
		garbage[i] = 1
	}
	runtime.KeepAlive(garbage) // collectable from here on
	runtime.GC()
	lastRelease.Store(0)
	before := Releases()
	stop := BoundResident(1 << 20)
	defer stop()
	deadline := time.Now().Add(50 * trimEvery)
	for Releases() == before && time.Now().Before(deadline) {
		time.Sleep(trimEvery / 4)
	}
	if Releases() == before {
		t.Errorf("the Go heap's free pages were not given back in %v with 64 MiB collected against a 1 MiB limit", 50*trimEvery)
	}
	if PeakAnonymous() < (total-shared)/2 {
		t.Errorf("PeakAnonymous %d bytes, the process held %d anonymous bytes", PeakAnonymous(), total-shared)
	}
}

// TestSettle: past its limit, Settle returns the Go heap's collected
// pages to the system; within the limit it returns nothing; a mapped
// table keeps what it holds, its pages left to the kernel.
func TestSettle(t *testing.T) {
	if _, _, ok := residentBytes(); !ok {
		t.Skip("the system does not report resident memory")
	}
	defer SetBudget(1, t.TempDir())()
	table := Make[uint64](16 * minMapped / 8)
	defer Free(table)
	for i := range table {
		table[i] = uint64(i)
	}
	garbage := make([]byte, 64<<20)
	for i := range garbage {
		garbage[i] = 1
	}
	runtime.KeepAlive(garbage) // collectable from here on
	before := Releases()
	Settle(1 << 62)
	if Releases() != before {
		t.Errorf("within its limit Settle gave the Go heap's pages back")
	}
	total, shared, _ := residentBytes()
	Settle(1 << 20)
	total2, shared2, _ := residentBytes()
	if anon, anon2 := total-shared, total2-shared2; anon-anon2 < 48<<20 {
		t.Errorf("past its limit Settle took the anonymous resident memory from %d to %d bytes with 64 MiB collected, want at least 48 MiB less", anon, anon2)
	}
	if Releases() != before+1 {
		t.Errorf("past its limit Settle gave the Go heap's pages back %d times, want once", Releases()-before)
	}
	for i := range table {
		if table[i] != uint64(i) {
			t.Fatalf("entry %d reads %d after Settle, want %d", i, table[i], i)
		}
	}
}

// TestPacer: a loop's Pacer checks the resident memory against the
// bound's limit once every paceSteps steps, and only when no check was
// made for trimEvery.
func TestPacer(t *testing.T) {
	if _, _, ok := residentBytes(); !ok {
		t.Skip("the system does not report resident memory")
	}
	boundLimit.Store(1 << 62)
	defer boundLimit.Store(0)
	var p Pacer
	recent := time.Now().UnixNano()
	lastCheck.Store(recent)
	for range paceSteps {
		p.Step()
	}
	if lastCheck.Load() != recent {
		t.Errorf("a Pacer checked again less than %v after the last check", trimEvery)
	}
	old := time.Now().Add(-trimEvery).UnixNano()
	lastCheck.Store(old)
	for range paceSteps - 1 {
		p.Step()
	}
	if lastCheck.Load() != old {
		t.Errorf("a Pacer checked before %d steps", paceSteps)
	}
	p.Step()
	if lastCheck.Load() == old {
		t.Errorf("%d steps, %v after the last check: no check", paceSteps, trimEvery)
	}
}

// TestDefaultBudget: a third of the dump, within MinBudget and an
// eighth of the machine's memory; an eighth of the machine's memory when
// the dump's size is unknown.
func TestDefaultBudget(t *testing.T) {
	eighth := PhysicalMemory() / 8
	if eighth == 0 {
		t.Skip("the system does not report its memory")
	}
	for _, c := range []struct {
		dump, want int64
	}{
		{0, eighth},
		{1 << 20, MinBudget},
		{eighth, max(eighth/3, MinBudget)},
		{3 * eighth, eighth},
	} {
		if got := DefaultBudget(c.dump); got != c.want {
			t.Errorf("DefaultBudget(%d) = %d with %d bytes of memory, want %d", c.dump, got, PhysicalMemory(), c.want)
		}
	}
}

// TestFreedScratchReused: a mapped table that is freed leaves its
// scratch file to the next table that fits in it, which reads zeros;
// the spare files are released when the budget is set again.
func TestFreedScratchReused(t *testing.T) {
	restore := SetBudget(1, t.TempDir())
	defer restore()
	n := 2 * minMapped
	first := Make[uint64](n)
	for i := range first {
		first[i] = ^uint64(i)
	}
	at := unsafe.SliceData(first)
	Free(first)
	if MappedBytes() != 0 {
		t.Fatalf("mapped %d bytes after Free, want 0", MappedBytes())
	}
	second := Make[uint32](n) // half the size: fits in the first's file
	if unsafe.SliceData(second) != (*uint32)(unsafe.Pointer(at)) {
		t.Errorf("the second table was mapped anew, not in the first's scratch file")
	}
	if MappedBytes() != int64(4*n) {
		t.Errorf("mapped %d bytes, want %d", MappedBytes(), 4*n)
	}
	for i, v := range second {
		if v != 0 {
			t.Fatalf("entry %d of the reused table is %#x, want 0", i, v)
		}
	}
	Free(second)
	restore()
	mu.Lock()
	left := len(spare)
	mu.Unlock()
	if left != 0 {
		t.Errorf("%d spare scratch files kept after the budget was set again", left)
	}
}

// TestFreedScratchJoined: a table that no freed table's scratch file
// holds alone is mapped in the freed files, joined one after the other,
// and a new file for what they lack; it reads zeros where they held
// values, keeps what is written to it across the files' seams, and its
// files serve the next tables one by one once it is freed.
func TestFreedScratchJoined(t *testing.T) {
	restore := SetBudget(1, t.TempDir())
	defer restore()
	defer func(was int64) { joinedFiles = was }(joinedFiles)
	joinedFiles = 1 << 40
	page := os.Getpagesize()
	sizes := []int{3 * minMapped, 2 * minMapped, minMapped + page, minMapped}
	spares := 0
	tables := make([][]byte, len(sizes))
	for k, size := range sizes {
		tables[k] = Make[byte](size)
		for i := range tables[k] {
			tables[k][i] = byte(i) | 1
		}
		spares += size
	}
	for _, table := range tables {
		Free(table)
	}
	mu.Lock()
	peak, kept := peakFiles, spareBytes
	mu.Unlock()
	if kept != int64(spares) {
		t.Fatalf("%d bytes of spare scratch files after the tables were freed, want %d", kept, spares)
	}

	// Three of the four files hold more than 5 MiB; the fourth is left.
	n := 5*minMapped + page
	joined := Make[uint64](n / 8)
	checkZero(t, "a table joined from freed files", joined)
	for i := range joined {
		joined[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	for i, v := range joined {
		if v != uint64(i)*0x9E3779B97F4A7C15 {
			t.Fatalf("entry %d of the joined table is %#x after it was written, want %#x", i, v, uint64(i)*0x9E3779B97F4A7C15)
		}
	}
	mu.Lock()
	after, left, live := peakFiles, len(spare), len(mapped)
	mu.Unlock()
	if after != peak || left != 1 || live != 1 {
		t.Errorf("joined table: the files took %d bytes at their most (before: %d), %d spare files left, %d tables mapped; want no new file, 1 spare, 1 table", after, peak, left, live)
	}

	// Past every spare file: all of them and a new file for the rest.
	Free(joined)
	big := MakeRandom[uint64]((spares + 3*minMapped) / 8)
	checkZero(t, "a random table joined from freed files and a new one", big)
	for i := range big {
		big[i] = ^uint64(i)
	}
	mu.Lock()
	grown, left := peakFiles, len(spare)
	mu.Unlock()
	if left != 0 || grown != peak+3*minMapped {
		t.Errorf("table past the spare files: %d spare files left, the files took %d bytes at their most; want 0 and %d (the spares and a new file of the rest)", left, grown, peak+3*minMapped)
	}
	Free(big)

	// One by one again: each file serves a table of its own size.
	for _, size := range sizes {
		table := Make[byte](size)
		checkZero(t, "a table in a file freed from a joined table", table)
		Free(table)
	}
	mu.Lock()
	last := peakFiles
	mu.Unlock()
	if last != grown {
		t.Errorf("the files took %d bytes at their most after the joined table was freed, want %d: a table of a freed part's size made a new file", last, grown)
	}
}

// TestJoinedUpToClearHeld: spare scratch files are joined for a table's
// first clearHeld bytes only; a new file holds the rest.
func TestJoinedUpToClearHeld(t *testing.T) {
	defer SetBudget(1, t.TempDir())()
	defer func(was int) { clearHeld = was }(clearHeld)
	clearHeld = 2 * minMapped
	defer func(was int64) { joinedFiles = was }(joinedFiles)
	joinedFiles = 1 << 40
	tables := make([][]byte, 4)
	for k := range tables {
		tables[k] = Make[byte](minMapped)
	}
	for _, table := range tables {
		Free(table)
	}
	table := Make[byte](6 * minMapped)
	checkZero(t, "a table joined up to clearHeld", table)
	parts := partsOf(table)
	if parts != 3 {
		t.Errorf("the table is mapped from %d files, want 3: two spare ones for its first clearHeld bytes, a new one for the rest", parts)
	}
	Free(table)
}

// TestNotJoinedPastJoinedFiles: a build whose scratch files would pass
// joinedFiles with a table's gives the table a new file of its own;
// within it, the same spare files are joined.
func TestNotJoinedPastJoinedFiles(t *testing.T) {
	defer SetBudget(1, t.TempDir())()
	defer func(was int64) { joinedFiles = was }(joinedFiles)
	joinedFiles = 4 * minMapped
	tables := [][]byte{Make[byte](minMapped), Make[byte](minMapped)}
	for _, table := range tables {
		Free(table)
	}
	table := Make[byte](3 * minMapped) // 2 MiB spare, 5 MiB with the table
	parts := partsOf(table)
	if parts != 1 {
		t.Errorf("the table is mapped from %d files, want 1: joining would pass joinedFiles", parts)
	}
	checkZero(t, "a table past joinedFiles", table)
	Free(table)
	joinedFiles = 8 * minMapped
	joined := Make[byte](4 * minMapped)
	parts = partsOf(joined)
	if parts != 2 {
		t.Errorf("the second table is mapped from %d files, want 2 (the first's, spare, and a new one of 1 MiB)", parts)
	}
	Free(joined)
}

// TestMakeRandomZeroed: a table MakeRandom maps reads zeros, both in a
// new scratch file and in a freed table's file whose pages the page
// cache holds written over (dropped, not cleared), and that file serves
// Make again once freed.
func TestMakeRandomZeroed(t *testing.T) {
	defer SetBudget(1, t.TempDir())()
	n := 2 * minMapped
	fresh := MakeRandom[uint64](n)
	checkZero(t, "a new random table", fresh)
	for i := range fresh {
		fresh[i] = ^uint64(i)
	}
	at := unsafe.SliceData(fresh)
	Free(fresh)
	reused := MakeRandom[uint64](n - 3)
	if unsafe.SliceData(reused) != at {
		t.Errorf("the random table was mapped anew, not in the freed table's scratch file")
	}
	checkZero(t, "a random table in a freed table's file", reused)
	for i := range reused {
		reused[i] = uint64(i) | 1
	}
	Free(reused)
	again := Make[uint64](n)
	checkZero(t, "a table in a freed random table's file", again)
	Free(again)
}

// checkZero fails the test when table holds anything but zeros.
func checkZero[T Number](t *testing.T, what string, table []T) {
	t.Helper()
	for i, v := range table {
		if v != 0 {
			t.Fatalf("%s: entry %d is %#x, want 0", what, i, v)
		}
	}
}

// partsOf returns how many scratch files table, a mapped table, is
// mapped from.
func partsOf(table []byte) int {
	mu.Lock()
	defer mu.Unlock()
	return len(mapped[uintptr(unsafe.Pointer(unsafe.SliceData(table)))].parts)
}

// TestSpareBounded: the spare scratch files take no more than the mapped
// tables' files took at their most.
func TestSpareBounded(t *testing.T) {
	defer SetBudget(1, t.TempDir())()
	for k := 1; k <= 6; k++ {
		Free(Make[uint8](k * minMapped)) // no spare file fits the next
	}
	mu.Lock()
	defer mu.Unlock()
	if filesBytes != 0 || spareBytes > peakFiles || spareBytes == 0 {
		t.Errorf("%d bytes of spare scratch files, %d of mapped tables; want some spare, none mapped and at most the %d the tables took at their most", spareBytes, filesBytes, peakFiles)
	}
}

// TestMakeSideBySide: tables made at once on several goroutines share the
// budget: of eight that each take more than half of what the budget has
// left, at most one is put on the Go heap.
func TestMakeSideBySide(t *testing.T) {
	runtime.GC()
	const size = 45 << 20
	defer SetBudget(heapBytes()+100<<20, t.TempDir())()
	tables := make([][]byte, 8)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for k := range tables {
		wg.Go(func() {
			<-start
			tables[k] = Make[byte](size)
		})
	}
	close(start)
	wg.Wait()
	if mapped := MappedBytes(); mapped < 7*size {
		t.Errorf("%d MiB of the tables mapped, want at least %d: more than one went on the Go heap", mapped>>20, 7*size>>20)
	}
	for _, table := range tables {
		Free(table)
	}
}
