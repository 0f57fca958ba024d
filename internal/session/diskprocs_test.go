package session

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestBuildProcs checks which builds run with more processors than they
// were given: those of a dump that, inflated, takes more than half the
// machine's memory.
func TestBuildProcs(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		name       string
		dump       int64
		compressed bool
		memory     int64
		procs      int
		want       int
	}{
		{"the bigdump on 24 GiB", 2_289_878_966, false, 24 * gib, 2, 2},
		{"half the memory exactly", 12 * gib, false, 24 * gib, 2, 2},
		{"past half the memory", 12*gib + 1, false, 24 * gib, 2, 6},
		{"the 32 GiB synthetic dump, gzipped", 16_927_100_211, true, 24 * gib, 2, 6},
		{"the same file, plain", 16_927_100_211, false, 48 * gib, 2, 2},
		{"a gzipped dump inflating to half the memory", 6 * gib, true, 24 * gib, 4, 4},
		{"a gzipped dump inflating past half the memory", 8 * gib, true, 24 * gib, 2, 6},
		{"one processor given", 40 * gib, false, 24 * gib, 1, 3},
		{"unknown size", 0, false, 24 * gib, 2, 2},
		{"unknown memory", 40 * gib, false, 0, 2, 2},
	} {
		if got := buildProcs(c.dump, c.compressed, c.memory, c.procs); got != c.want {
			t.Errorf("%s: buildProcs(%d, %v, %d, %d) = %d, want %d", c.name, c.dump, c.compressed, c.memory, c.procs, got, c.want)
		}
	}
}

// TestOverlapDiskReadsRestores checks that a small dump leaves GOMAXPROCS
// as it is, that a big one raises it, and that what overlapDiskReads
// returns sets it back.
func TestOverlapDiskReadsRestores(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	restore := overlapDiskReads(fixture, true)
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d during the build of a small dump, want %d", got, before)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after the build, want %d", got, before)
	}

	// A sparse file as big as the machine's memory stands for a dump
	// bigger than half of it, without taking the disk.
	memory := bigmem.PhysicalMemory()
	if memory == 0 {
		t.Skip("the machine's memory is unknown here")
	}
	big := filepath.Join(t.TempDir(), "big.hprof")
	if err := os.WriteFile(big, []byte("JAVA PROFILE 1.0.2\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, memory); err != nil {
		t.Skipf("no sparse file of %d bytes here: %v", memory, err)
	}
	if !dumpPastMemory(big, false) || dumpPastMemory(fixture, true) {
		t.Errorf("a dump of the machine's memory past it: %v, the small fixture: %v; want true, false", dumpPastMemory(big, false), dumpPastMemory(fixture, true))
	}
	restore = overlapDiskReads(big, false)
	if got := runtime.GOMAXPROCS(0); got != before*diskProcsPerCore {
		t.Errorf("GOMAXPROCS %d during the build of a dump of the machine's memory, want %d", got, before*diskProcsPerCore)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after the big build, want %d", got, before)
	}
}

// TestBuildToldCompression checks that a build is told whether its dump
// is compressed, as the file's first bytes say: the JVM's -gz dump of
// testdata/jvm is, the HeapShapes dump gzipped for the repository is,
// and that dump inflated is not.
func TestBuildToldCompression(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{filepath.Join("..", "..", "testdata", "jvm", "jdk17-gz.hprof.gz"), true},
		{fixture, true},
		{testshared.Gunzip(t, fixture), false},
	} {
		s, err := Open(c.path, Options{Dump: -1, NoIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.indexOptions().Compressed; got != c.want {
			t.Errorf("%s: the build told compressed %v, want %v", c.path, got, c.want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRetentionPhasesWaitForSearch checks that the semidominators of a
// heap past the machine's memory start only once the shortest-path search
// is over, and that other phases, and the semidominators of a heap the
// page cache holds, do not wait for it.
func TestRetentionPhasesWaitForSearch(t *testing.T) {
	for _, searchFirst := range []bool{false, true} {
		paths := &pathSearch{over: make(chan struct{})}
		var told []string
		phases := retentionPhases(func(name string) { told = append(told, name) }, func() {}, paths, searchFirst)
		phases("predecessors")
		returned := make(chan struct{})
		go func() {
			phases(searchBefore)
			close(returned)
		}()
		if searchFirst {
			select {
			case <-returned:
				t.Fatal("the semidominators of a heap past memory started while the search ran")
			case <-time.After(100 * time.Millisecond):
			}
			close(paths.over)
		}
		select {
		case <-returned:
		case <-time.After(time.Minute):
			t.Fatalf("searchFirst %v: the semidominators still wait", searchFirst)
		}
		if want := []string{"predecessors", searchBefore}; !slices.Equal(told, want) {
			t.Errorf("searchFirst %v: phases told %q, want %q", searchFirst, told, want)
		}
	}
}
