package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// The command benchmarks run hprofctl as a separate process on each
// benchmark dump at each of benchProcs, and report wall time (ns/op), MB/s
// of the dump as stored, the process's peak resident set size and that
// peak as a share of the dump, and its CPU time (user and system: on a
// shared machine a steadier figure than the wall time). HPROFCTL_BENCH_PROFILE=DIR also writes each
// run's CPU profile there (through HPROFCTL_CPUPROFILE).

// benchProcs are the GOMAXPROCS values every command is measured at.
var benchProcs = []int{1, 2}

// benchTarget is one dump the command benchmarks run on.
type benchTarget struct {
	name string
	path func(b *testing.B) string
}

// syntheticTarget is the synthetic dump of HPROFCTL_BENCH_GB gigabytes.
var syntheticTarget = benchTarget{"synthetic", syntheticDump}

// realTargets are the real HotSpot dumps of testdata/bench, plain and the
// JVM's -gz=1; a benchmark on one is skipped when make bench-dump has not
// written it.
var (
	realTarget   = benchTarget{"service-heap", realDump(benchdata.ServiceHeap)}
	realGzTarget = benchTarget{"service-heap-gz", realDump(benchdata.ServiceHeapGz)}
)

func realDump(name string) func(b *testing.B) string {
	return func(b *testing.B) string { return benchdata.Real(b, name) }
}

// syntheticDump returns a realistic synthetic dump of HPROFCTL_BENCH_GB
// gigabytes (default 1), written once and kept in benchdata.Dir().
func syntheticDump(b *testing.B) string {
	b.Helper()
	gb := 1.0
	if s := os.Getenv("HPROFCTL_BENCH_GB"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("HPROFCTL_BENCH_GB=%q: %v", s, err)
		}
		gb = v
	}
	dir := benchdata.Dir()
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

// benchBinary builds hprofctl once per benchmark function.
func benchBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "hprofctl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// warmed holds the dumps already read once by this process.
var warmed sync.Map

// warm reads path once so that the figures are for a dump in the page
// cache.
func warm(b *testing.B, path string) {
	if _, done := warmed.LoadOrStore(path, true); done {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		b.Fatal(err)
	}
}

// benchCommand runs hprofctl args on each target at each of benchProcs,
// reading the dump itself and from the dump's index (built once before,
// not timed): sub-benchmarks TARGET/no-index/procs=N and
// TARGET/index/procs=N.
func benchCommand(b *testing.B, targets []benchTarget, args ...string) {
	bin := benchBinary(b)
	for _, t := range targets {
		b.Run(t.name, func(b *testing.B) {
			dump := t.path(b)
			warm(b, dump)
			dir := benchIndexDir(b)
			for _, mode := range []struct {
				name  string
				flags []string
			}{{"no-index", []string{"--no-index"}}, {"index", []string{"--index-dir", dir}}} {
				b.Run(mode.name, func(b *testing.B) {
					if mode.name == "index" {
						buildIndex(b, bin, dir, dump)
					}
					for _, procs := range benchProcs {
						b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
							runCommand(b, bin, dump, procs, append(slices.Clone(mode.flags), args...))
						})
					}
				})
			}
		})
	}
}

// benchIndexDir is where the benchmarks keep the dumps' indexes: beside
// the benchmark dumps, in benchdata.Dir()/index.
func benchIndexDir(b *testing.B) string {
	dir := filepath.Join(benchdata.Dir(), "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// buildIndex makes sure dump has a fresh index in dir.
func buildIndex(b *testing.B, bin, dir, dump string) {
	out, err := exec.Command(bin, "index", "--index-dir", dir, dump).CombinedOutput()
	if err != nil {
		b.Fatalf("index: %v\n%s", err, out)
	}
}

// BenchmarkIndex is `hprofctl index --force`: reading the dump, the graph,
// the dominator tree, the shortest path tree, and writing the index.
func BenchmarkIndex(b *testing.B) {
	bin := benchBinary(b)
	for _, t := range []benchTarget{syntheticTarget, realTarget, realGzTarget} {
		b.Run(t.name, func(b *testing.B) {
			dump := t.path(b)
			warm(b, dump)
			dir := benchIndexDir(b)
			for _, procs := range benchProcs {
				b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
					runCommand(b, bin, dump, procs, []string{"index", "--force", "--index-dir", dir, "-o", "json"})
				})
			}
		})
	}
}

// runCommand runs bin args dump b.N times with GOMAXPROCS=procs and
// reports MB/s, the peak RSS, the peak RSS over the dump's size and the
// CPU seconds per run.
func runCommand(b *testing.B, bin, dump string, procs int, args []string) {
	runArgs(b, bin, dump, procs, append(slices.Clone(args), dump))
}

// runArgs runs bin argv, whose arguments name dump, as runCommand does.
func runArgs(b *testing.B, bin, dump string, procs int, argv []string) {
	st, err := os.Stat(dump)
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	if dir := os.Getenv("HPROFCTL_BENCH_PROFILE"); dir != "" {
		name := strings.NewReplacer("/", "_", "=", "").Replace(b.Name())
		env = append(env, cpuProfileEnv+"="+filepath.Join(dir, name+".pprof"))
	}
	var peak int64
	var total, cpu time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(bin, argv...)
		cmd.Env = env
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		hwm := watchPeakRSS(cmd.Process.Pid)
		err := cmd.Wait()
		total += time.Since(start)
		if err != nil {
			b.Fatalf("%v: %v\n%s", argv, err, out.String())
		}
		rss := hwm()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			if rss == 0 { // no /proc: the rusage, an upper bound
				rss = ru.Maxrss * 1024
			}
		}
		peak = max(peak, rss)
	}
	b.StopTimer()
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(float64(st.Size())/secs/1e6, "MB/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(peak)/float64(st.Size()), "RSS/dump")
	b.ReportMetric(float64(st.Size())/(1<<20), "dump-MiB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
}

// watchPeakRSS samples the high-water mark of pid's resident set (VmHWM
// in /proc/PID/status) every 2 ms until the returned function is called,
// which returns the highest value seen, in bytes. The rusage of a child
// cannot serve: Linux starts a child's ru_maxrss from its parent's peak
// (the child is vforked from the benchmark process), so a small command
// would report the benchmark's own size. The mark only grows, so only
// growth in the last 2 ms of a run can be missed.
func watchPeakRSS(pid int) func() int64 {
	status := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	sample := func() {
		data, err := os.ReadFile(status)
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					peak = max(peak, kb<<10)
				}
			}
		}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return peak
	}
}

// BenchmarkHisto is `hprofctl histo`: streaming, no graph; on the -gz dump
// too, where decompression is most of the work.
func BenchmarkHisto(b *testing.B) {
	benchCommand(b, []benchTarget{syntheticTarget, realTarget, realGzTarget}, "histo", "-o", "csv")
}

// BenchmarkModel is `hprofctl info`, which builds the full object graph;
// on the -gz dump too.
func BenchmarkModel(b *testing.B) {
	benchCommand(b, []benchTarget{syntheticTarget, realTarget, realGzTarget}, "info", "-o", "json")
}
