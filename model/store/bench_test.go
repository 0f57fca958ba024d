package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchBytes is the size of the index the benchmarks write and read:
// HPROFCTL_BENCH_GB gigabytes (GiB), 1 by default.
func benchBytes(b *testing.B) int64 {
	b.Helper()
	gb := 1.0
	if s := os.Getenv("HPROFCTL_BENCH_GB"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("HPROFCTL_BENCH_GB=%q: %v", s, err)
		}
		gb = v
	}
	return int64(gb*(1<<30)) &^ 7
}

// benchChunk is the array chunk the write benchmark appends: a builder's
// chunk, not the whole array, is what is in memory.
const benchChunk = 8 << 20 // uint64s: 64 MiB

// benchData returns the chunk the benchmarks write, filled.
func benchData() []uint64 {
	chunk := make([]uint64, benchChunk)
	for i := range chunk {
		chunk[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	return chunk
}

// writeBenchIndex writes an index of one uint64 array of size bytes, chunk
// after chunk, with a small string table and blob beside it, and returns
// the time Commit took (section table, header, fsync, rename).
func writeBenchIndex(b *testing.B, path string, size int64, chunk []uint64) time.Duration {
	w, err := Create(path, testID, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	a, err := NewArray[uint64](w, "objects")
	if err != nil {
		b.Fatal(err)
	}
	for left := size / 8; left > 0; left -= int64(len(chunk)) {
		if err := a.Append(chunk[:min(int64(len(chunk)), left)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		b.Fatal(err)
	}
	if err := w.WriteStrings("classes", []string{"java.lang.String", "byte[]", "java.util.HashMap$Node"}); err != nil {
		b.Fatal(err)
	}
	if err := w.WriteJSON("meta", map[string]int64{"bytes": size}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkWrite streams a HPROFCTL_BENCH_GB GiB array section to an index
// and commits it, fsync included; commit-s is the part Commit takes.
func BenchmarkWrite(b *testing.B) {
	size := benchBytes(b)
	path := filepath.Join(b.TempDir(), "bench"+Suffix)
	chunk := benchData()
	b.SetBytes(size)
	var commit time.Duration
	for b.Loop() {
		commit += writeBenchIndex(b, path, size, chunk)
	}
	b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	b.ReportMetric(commit.Seconds()/float64(b.N), "commit-s")
}

// BenchmarkOpenVerify opens a HPROFCTL_BENCH_GB GiB index (in the page
// cache) and checks every section, as reading all of it would;
// rss-growth-MiB is how much the check adds to resident memory.
func BenchmarkOpenVerify(b *testing.B) {
	size := benchBytes(b)
	path := filepath.Join(b.TempDir(), "bench"+Suffix)
	writeBenchIndex(b, path, size, benchData())
	b.SetBytes(size)
	var grown int64
	for b.Loop() {
		before := residentBytes()
		ix, err := Open(path, testID)
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Verify(); err != nil {
			b.Fatal(err)
		}
		grown = max(grown, residentBytes()-before)
		ix.Close()
	}
	b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	b.ReportMetric(float64(grown)/(1<<20), "rss-growth-MiB")
}

// residentBytes returns the process's resident set size from
// /proc/self/statm, or 0 where there is none.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(fields[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkOpen opens a HPROFCTL_BENCH_GB GiB index and reads one small
// section: what a query that needs little pays.
func BenchmarkOpen(b *testing.B) {
	size := benchBytes(b)
	path := filepath.Join(b.TempDir(), "bench"+Suffix)
	writeBenchIndex(b, path, size, benchData())
	for b.Loop() {
		ix, err := Open(path, testID)
		if err != nil {
			b.Fatal(err)
		}
		if s, err := ix.Strings("classes"); err != nil || s.Len() != 3 {
			b.Fatal(s.Len(), err)
		}
		ix.Close()
	}
}
