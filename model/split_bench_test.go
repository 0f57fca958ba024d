//go:build unix

package model

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/hprofctl/hprofctl/parser/input"
)

// BenchmarkLoadObjects is the reading phase of an index build (Load with
// objects, up to the objects' sorting) on a 256 MiB realistic dump and on
// the real dump of make bench-dump, in pieces and with one reader, at
// GOMAXPROCS 1 and 2: sub-benchmarks DUMP/READER/procs=N, reporting the
// dump's MB/s through the reading phase, its seconds, and the CPU seconds
// of the whole Load (the sorting and resolving included; on a shared
// machine a steadier figure than the wall time).
func BenchmarkLoadObjects(b *testing.B) {
	synthetic := filepath.Join(b.TempDir(), "realistic.hprof")
	f, err := os.Create(synthetic)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := hproftest.WriteRealistic(f, 256<<20, 1, 8); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	dumps := []struct {
		name string
		path func(b *testing.B) string
	}{
		{"synthetic", func(*testing.B) string { return synthetic }},
		{"service-heap", func(b *testing.B) string { return benchdata.Real(b, benchdata.ServiceHeap) }},
	}
	readers := []struct {
		name string
		load func(*input.File, LoadOptions) (*Heap, error)
	}{{"pieces", Load}, {"stream", loadStream}}
	for _, d := range dumps {
		b.Run(d.name, func(b *testing.B) {
			path := d.path(b)
			for _, r := range readers {
				for _, procs := range []int{1, 2} {
					b.Run(fmt.Sprintf("%s/procs=%d", r.name, procs), func(b *testing.B) {
						defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
						benchLoad(b, path, r.load)
					})
				}
			}
		})
	}
}

// benchLoad loads path with its objects b.N times with load.
func benchLoad(b *testing.B, path string, load func(*input.File, LoadOptions) (*Heap, error)) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var reading time.Duration
	cpu := processCPU()
	for range b.N {
		f, err := input.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		read := false
		phase := func(name string) {
			if !read {
				reading += time.Since(start)
				read = true
			}
		}
		_, err = load(f, LoadOptions{Dump: -1, Objects: true, LeanGC: true, Phase: phase})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Size())*float64(b.N)/reading.Seconds()/1e6, "read-MB/s")
	b.ReportMetric(reading.Seconds()/float64(b.N), "read-s")
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s")
}

// processCPU is the CPU time the process has used, user and system; 0
// where the system does not say.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
