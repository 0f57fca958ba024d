package input

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
	"github.com/klauspost/compress/gzip"
)

// syntheticGzSize is the decompressed size of the synthetic -gz file.
const syntheticGzSize = 256 << 20

// syntheticJVMGzip returns a realistic synthetic dump of 256 MiB
// compressed as the JVM's -gz=1 (1 MiB members), written once in
// benchdata.Dir(): a -gz file for machines where no JVM made one.
func syntheticJVMGzip(b *testing.B) string {
	dir := benchdata.Dir()
	path := filepath.Join(dir, fmt.Sprintf("realistic-%dm-jvm.hprof.gz", syntheticGzSize>>20))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.CreateTemp(dir, "partial-*.gz")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<20)
	mw := &memberWriter{dst: bw, block: 1 << 20, level: gzip.BestSpeed}
	_, err = hproftest.WriteRealistic(mw, syntheticGzSize, 1, 8)
	if err == nil {
		err = mw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkDecompress reads compressed dumps to the end: with
// klauspost/compress/gzip on the reading goroutine (the reference), and through
// File at GOMAXPROCS 1, 2 and, where the machine has them, 4 to 16. The
// JVM's -gz files (the fixture, the synthetic one, the real one of make
// bench-dump) are inflated member by member in parallel; the single-member
// fixture (gzip -9) on one goroutine beside the reader. MB/s is of
// decompressed bytes, stored-MB/s of the file; cpu-s is the CPU time of
// the whole process per read.
func BenchmarkDecompress(b *testing.B) {
	fixture := func(name string) func(*testing.B) string {
		return func(*testing.B) string { return filepath.Join("..", "..", "testdata", "jvm", name) }
	}
	for _, target := range []struct {
		name string
		path func(*testing.B) string
	}{
		{"fixture-jdk17-gz", fixture("jdk17-gz.hprof.gz")},
		{"fixture-gzip-9", fixture("jdk17-default.hprof.gz")},
		{"synthetic-jvm-gz", syntheticJVMGzip},
		{"service-heap-gz", func(b *testing.B) string { return benchdata.Real(b, benchdata.ServiceHeapGz) }},
	} {
		b.Run(target.name, func(b *testing.B) {
			path := target.path(b)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			size := decompressedSize(b, path)
			b.Run("compress-gzip", func(b *testing.B) {
				benchRead(b, size, st.Size(), func() (io.ReadCloser, error) {
					f, err := os.Open(path)
					if err != nil {
						return nil, err
					}
					zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
					if err != nil {
						f.Close()
						return nil, err
					}
					return struct {
						io.Reader
						io.Closer
					}{zr, f}, nil
				})
			})
			for _, procs := range []int{1, 2, 4, 8, 16} {
				if procs > 2 && procs > runtime.NumCPU() {
					break
				}
				b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					benchRead(b, size, st.Size(), func() (io.ReadCloser, error) { return Open(path) })
				})
			}
		})
	}
}

// decompressedSize reads path once through klauspost/compress/gzip, which also puts
// it in the page cache.
func decompressedSize(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// benchRead reads what open returns to its end in 256 KiB reads, as the
// parsers do, b.N times.
func benchRead(b *testing.B, size, stored int64, open func() (io.ReadCloser, error)) {
	b.SetBytes(size)
	buf := make([]byte, 256<<10)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for range b.N {
		r, err := open()
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for {
			k, err := r.Read(buf)
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
		if n != size {
			b.Fatalf("%d bytes, want %d", n, size)
		}
	}
	b.ReportMetric(float64(stored)*float64(b.N)/b.Elapsed().Seconds()/1e6, "stored-MB/s")
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s")
}

// cpuTime is the CPU time (user and system) this process has used: on a
// shared machine a steadier figure than the wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
