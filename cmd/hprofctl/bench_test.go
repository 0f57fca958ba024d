package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// benchDump returns a realistic synthetic dump of HPROFCTL_BENCH_GB
// gigabytes (default 1), written once and kept in the temporary directory.
func benchDump(b *testing.B) string {
	b.Helper()
	gb := 1.0
	if s := os.Getenv("HPROFCTL_BENCH_GB"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("HPROFCTL_BENCH_GB=%q: %v", s, err)
		}
		gb = v
	}
	dir := filepath.Join(os.TempDir(), "hprofctl-bench")
	path := filepath.Join(dir, fmt.Sprintf("realistic-%gg.hprof", gb))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := hproftest.WriteRealistic(w, int64(gb*(1<<30)), 1, 8); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchBinary builds hprofctl once per benchmark run.
func benchBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "hprofctl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// benchCommand runs hprofctl on the benchmark dump as a separate process
// and reports MB/s and the process's peak resident set size.
func benchCommand(b *testing.B, args ...string) {
	dump := benchDump(b)
	bin := benchBinary(b)
	st, err := os.Stat(dump)
	if err != nil {
		b.Fatal(err)
	}
	// Warm the page cache: the figures are for a dump read from memory.
	if f, err := os.Open(dump); err == nil {
		buf := make([]byte, 1<<20)
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
	}
	var peak int64
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(bin, append(args, dump)...)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		total += time.Since(start)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss*1024)
		}
	}
	b.StopTimer()
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(float64(st.Size())/secs/1e6, "MB/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(st.Size())/(1<<20), "dump-MiB")
}

// BenchmarkHisto is `hprofctl histo` on a ~1 GB dump: streaming, no graph.
func BenchmarkHisto(b *testing.B) { benchCommand(b, "histo", "-o", "csv") }

// BenchmarkModel is `hprofctl info`, which builds the full object graph.
func BenchmarkModel(b *testing.B) { benchCommand(b, "info", "-o", "json") }
