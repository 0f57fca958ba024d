package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// manyEnv names how many small instances BenchmarkManyObjects's dump
// holds; the benchmark is skipped without it (make bench-many sets it,
// by default past 2^31 objects, the most an index of signed 32-bit
// numbers, such as Eclipse MAT's, can hold).
const manyEnv = "HPROFCTL_MANY_OBJECTS"

// manyDiskPerObject is the disk, in bytes per object, a run of
// BenchmarkManyObjects takes at its peak: the gzipped dump (5.5 bytes an
// object) and the index with the scratch files of its build (61.8 bytes
// an object at the peak, measured on 50 M objects under --memory 300MiB).
const manyDiskPerObject = 70

// BenchmarkManyObjects writes a dump of $HPROFCTL_MANY_OBJECTS small
// instances with 4-byte identifiers (hproftest.WriteManySmall), gzipped
// as the JVM writes -gz dumps, into benchdata.Dir(); indexes it under
// --memory $HPROFCTL_HUGE_MEMORY (default 3GiB); and asks histo,
// dominators --top 20 and retainers --class from the index, printing each
// one's time and peak anonymous memory. histo must count every instance
// the writer wrote. The benchmark fails at once when the disk has not
// room for the run. The dump and the index are removed afterwards.
func BenchmarkManyObjects(b *testing.B) {
	small, err := strconv.ParseInt(os.Getenv(manyEnv), 10, 64)
	if err != nil || small <= 0 {
		b.Skipf("%s is not set to a count of objects", manyEnv)
	}
	memory := os.Getenv(hugeMemoryEnv)
	if memory == "" {
		memory = "3GiB"
	}
	dir := filepath.Join(benchdata.Dir(), fmt.Sprintf("many-%d", small))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	need := manyDiskPerObject * float64(small)
	if free, known := freeDisk(dir); known {
		b.Logf("disk: %.1f GB free, the run takes about %.1f GB", float64(free)/1e9, need/1e9)
		if float64(free) < need {
			b.Fatalf("%.1f GB free under %s: too little for %d objects; set %s lower, or HPROFCTL_BENCH_DIR to a larger disk",
				float64(free)/1e9, dir, small, manyEnv)
		}
	}
	bin := benchBinary(b)
	dump := filepath.Join(dir, "many.hprof.gz")
	start := time.Now()
	stats := writeManyDump(b, dump, small)
	b.Logf("wrote %s: %d bytes, %d objects (%d small instances, %d arrays of them, %d roots) in %s", dump, stats.Bytes,
		stats.Objects, stats.Small, stats.Leaves, stats.Tops, time.Since(start).Round(time.Second))
	questions := [][]string{
		{"index", "--memory", memory},
		{"histo", "-o", "json"},
		{"dominators", "--top", "20"},
		{"retainers", "--class", `^com\.example\.Small$`},
	}
	b.ResetTimer()
	askTimed(b, bin, dir, dump, questions, func(name, out string) {
		switch name {
		case "index":
			logPhases(b, out)
			writeBack()
		case "histo":
			checkManyHisto(b, out, stats)
		}
	})
}

// writeManyDump writes WriteManySmall's dump of small instances to path,
// gzipped as the JVM writes -gz dumps, and returns what the writer wrote.
func writeManyDump(b *testing.B, path string, small int64) hproftest.ManySmall {
	var stats hproftest.ManySmall
	writeDumpFile(b, path, true, func(w io.Writer) (err error) {
		stats, err = hproftest.WriteManySmall(w, small)
		return err
	})
	return stats
}

// checkManyHisto checks histo's JSON against what WriteManySmall wrote:
// the small instances, their arrays and the roots' arrays, counted by
// class.
func checkManyHisto(b *testing.B, out string, stats hproftest.ManySmall) {
	got, total := histoCounts(b, out)
	want := map[string]int64{"com.example.Small": stats.Small, "com.example.Small[]": stats.Leaves,
		"java.lang.Object[]": stats.Tops, "java.lang.Class": stats.Classes}
	for class, n := range want {
		if got[class] != n {
			b.Errorf("%s: %d instances in histo, the writer wrote %d", class, got[class], n)
		}
	}
	if total != stats.Objects {
		b.Errorf("histo counts %d objects, the writer wrote %d", total, stats.Objects)
	}
	b.Logf("histo: %d objects, as the writer wrote", total)
}
