package session

import (
	"runtime"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

// A build whose tables the page cache cannot hold waits on the disk: a
// goroutine that touches a page of a mapped table the kernel must read
// first stops its processor until the read is done, as Go cannot run
// another goroutine on a processor blocked in a page fault. With one
// processor per core the build waits on one read per core at a time
// (about 100 µs each on the test machines' disk), and the predecessors
// of the dominator tree take 1.6–1.9 M of them at 32 GiB. So such a
// build runs with diskProcsPerCore times the processors Go was given:
// the reads of several go to the disk together, and the cores run the
// others. On the 32 GiB synthetic dump, 2 cores, runs alternated in one
// hour: the predecessors took 51 s instead of 161 and 176 s, the whole
// build 760 s instead of 903 and 958 s.
const diskProcsPerCore = 3

// inflatedPer is how many times its size a compressed dump is assumed
// to take once inflated: HotSpot's dumps compress 2 to 4 times, so the
// least of that.
const inflatedPer = 2

// buildProcs returns how many processors (GOMAXPROCS) a build of a dump
// file of dumpBytes bytes (compressed or not) runs with on a machine of
// memory bytes, given procs: procs, or diskProcsPerCore times that when
// the dump, inflated, takes more than half the memory (the build's
// tables take about as much as the dump, and the index, the page cache
// of the dump and the rest of the machine share the other half). An
// unknown size or memory (0) keeps procs.
func buildProcs(dumpBytes int64, compressed bool, memory int64, procs int) int {
	if !pastMemory(dumpBytes, compressed, memory) {
		return procs
	}
	return procs * diskProcsPerCore
}

// pastMemory says whether the build of a dump file of dumpBytes bytes
// (compressed or not) on a machine of memory bytes has more tables than
// the page cache can hold: whether the dump, inflated, takes more than
// half the memory. An unknown size or memory (0) says no.
func pastMemory(dumpBytes int64, compressed bool, memory int64) bool {
	if compressed {
		dumpBytes *= inflatedPer
	}
	return dumpBytes > 0 && memory > 0 && dumpBytes > memory/2
}

// dumpPastMemory is pastMemory for the dump at path on this machine.
func dumpPastMemory(path string, compressed bool) bool {
	return pastMemory(regularFileSize(path), compressed, bigmem.PhysicalMemory())
}

// overlapDiskReads sets GOMAXPROCS for the build of the dump at path,
// compressed or not (buildProcs), and returns what sets it back. It is
// set before the build starts any goroutine and set back once it is
// over, so no pass sizes its per-worker tables for one count and runs
// with more (a job an error left running sees the count fall, which its
// tables, sized for more, allow).
func overlapDiskReads(path string, compressed bool) (restore func()) {
	procs := runtime.GOMAXPROCS(0)
	want := buildProcs(regularFileSize(path), compressed, bigmem.PhysicalMemory(), procs)
	if want == procs {
		return func() {}
	}
	runtime.GOMAXPROCS(want)
	return func() { runtime.GOMAXPROCS(procs) }
}
