// Package benchdata finds, for benchmarks, the large dumps that are
// generated rather than committed: the synthetic dumps the benchmarks write
// themselves and the real HotSpot dump of testdata/bench (make bench-dump).
package benchdata

import (
	"os"
	"path/filepath"
	"testing"
)

// DirEnv is the environment variable naming the directory of the benchmark
// dumps; testdata/bench/gen.sh writes there too.
const DirEnv = "HPROFCTL_BENCH_DIR"

// The files testdata/bench/gen.sh writes into Dir.
const (
	// ServiceHeap is the plain dump (jcmd GC.heap_dump -all).
	ServiceHeap = "service-heap.hprof"
	// ServiceHeapGz is the JVM's multi-member gzip dump of the same
	// process (jcmd GC.heap_dump -all -gz=1).
	ServiceHeapGz = "service-heap.hprof.gz"
)

// Dir is the directory of the benchmark dumps: $HPROFCTL_BENCH_DIR, else
// hprofctl-bench in the temporary directory.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "hprofctl-bench")
}

// Real returns the path of the generated file name in Dir, or skips the
// benchmark when it is absent.
func Real(b testing.TB, name string) string {
	b.Helper()
	path := filepath.Join(Dir(), name)
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s is absent: make bench-dump writes it", path)
	}
	return path
}
