package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/benchdata"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// hugeEnv names the size in GiB of BenchmarkHugeDump's dump; the
// benchmark is skipped without it (make bench-huge sets it, default 32).
// hugeMemoryEnv is the --memory its build runs under (default 3GiB).
// hugeGzipEnv says whether the dump is written as the JVM writes -gz
// dumps ("1") or plain ("0"); unset, it is gzipped when the disk has too
// little room for a plain one (hugePlainNeed).
const (
	hugeEnv       = "HPROFCTL_HUGE_GIB"
	hugeMemoryEnv = "HPROFCTL_HUGE_MEMORY"
	hugeGzipEnv   = "HPROFCTL_HUGE_GZIP"
)

// The disk a huge run takes at its peak, as multiples of the dump's
// uncompressed size: the dump, plain or gzipped (the realistic writer's
// dumps shrink to 0.49x at level 1), and the index and scratch files
// while the index is written (1.3x at a tenth of the dump as --memory,
// measured on the 1 and 4 GiB dumps).
const (
	hugePlainNeed = 2.4
	hugeGzipNeed  = 1.9
)

// BenchmarkHugeDump writes a realistic synthetic dump of $HPROFCTL_HUGE_GIB
// GiB (meant to be bigger than the machine's memory) into benchdata.Dir(),
// indexes it under --memory $HPROFCTL_HUGE_MEMORY and asks histo,
// dominators --top 20, leaks and retainers --class from the index,
// printing each one's time and peak anonymous memory (RssAnon, sampled),
// and the build's phases. Every class's instance count in histo must be
// the writer's own. The dump and the index are removed afterwards.
func BenchmarkHugeDump(b *testing.B) {
	gib, err := strconv.ParseFloat(os.Getenv(hugeEnv), 64)
	if err != nil || gib <= 0 {
		b.Skipf("%s is not set to a size in GiB", hugeEnv)
	}
	memory := os.Getenv(hugeMemoryEnv)
	if memory == "" {
		memory = "3GiB"
	}
	bin := benchBinary(b)
	dir := filepath.Join(benchdata.Dir(), fmt.Sprintf("huge-%g", gib))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	size := int64(gib * (1 << 30))
	gzipped := hugeGzipped(b, dir, size)
	dump := filepath.Join(dir, "huge.hprof")
	if gzipped {
		dump += ".gz"
	}
	start := time.Now()
	stats := writeHugeDump(b, dump, size, gzipped)
	stored := int64(0)
	if st, err := os.Stat(dump); err == nil {
		stored = st.Size()
	}
	b.Logf("wrote %s: %d bytes (%d on disk), %d instances, %d object arrays, %d primitive arrays in %s", dump, stats.Bytes,
		stored, stats.Instances, stats.ObjectArrays, stats.PrimitiveArrays, time.Since(start).Round(time.Second))
	questions := [][]string{
		{"index", "--memory", memory},
		{"histo", "-o", "json"},
		{"dominators", "--top", "20"},
		{"leaks"},
		{"retainers", "--class", `^java\.lang\.String$`},
	}
	b.ResetTimer()
	askTimed(b, bin, dir, dump, questions, func(name, out string) {
		switch name {
		case "index":
			logPhases(b, out)
			// The index's last sections may still be on their way to
			// disk when the build ends (it starts their writing and
			// does not wait), and a question's reads wait behind them:
			// at 32 GiB histo, the first question, took 2.1 s in one
			// run, 0.1 s in the run before. They are written before
			// the questions, and the time that takes given.
			start := time.Now()
			writeBack()
			b.Logf("%-12s %8.1fs  the index's pages still to write after the build", "writeback", time.Since(start).Seconds())
			b.ReportMetric(time.Since(start).Seconds(), "writeback-s")
		case "histo":
			checkHugeHisto(b, out, stats)
		}
	})
}

// askTimed asks each of questions (an hprofctl command line but the
// dump) of dump, with its index in dir/index, one after the other; logs
// and reports each one's time, its peak anonymous memory and the disk it
// took at its peak; and gives each one's output to check, with the
// question's name.
func askTimed(b *testing.B, bin, dir, dump string, questions [][]string, check func(name, out string)) {
	for _, q := range questions {
		args := append([]string{"--index-dir", filepath.Join(dir, "index")}, q...)
		out, took, anon, disk := runWatched(b, bin, append(args, dump), dir)
		b.Logf("%-12s %8.1fs  peak RssAnon %6.0f MiB  disk taken at the peak %6.0f MiB", q[0], took.Seconds(),
			float64(anon)/(1<<20), float64(disk)/(1<<20))
		b.ReportMetric(took.Seconds(), q[0]+"-s")
		b.ReportMetric(float64(anon)/(1<<20), q[0]+"-RssAnon-MiB")
		check(q[0], out)
	}
}

// hugeGzipped says whether the huge dump of size bytes is written
// gzipped (hugeGzipEnv), and fails the benchmark when the disk under dir
// has not room enough for the run.
func hugeGzipped(b *testing.B, dir string, size int64) bool {
	free, known := freeDisk(dir)
	gzipped := known && float64(free) < hugePlainNeed*float64(size)
	switch os.Getenv(hugeGzipEnv) {
	case "1":
		gzipped = true
	case "0":
		gzipped = false
	}
	need, how := hugePlainNeed, "plain"
	if gzipped {
		need, how = hugeGzipNeed, "gzipped (as -gz=1)"
	}
	b.Logf("disk: %.1f GB free, the run takes about %.1f GB with the dump %s", float64(free)/1e9,
		need*float64(size)/1e9, how)
	if known && float64(free) < need*float64(size) {
		b.Fatalf("%.1f GB free under %s: too little for a %d-byte dump; set %s lower, or HPROFCTL_BENCH_DIR to a larger disk",
			float64(free)/1e9, dir, size, hugeEnv)
	}
	return gzipped
}

// writeHugeDump writes the realistic dump of about size bytes to path,
// gzipped as the JVM writes -gz dumps or plain, and returns what the
// writer wrote.
func writeHugeDump(b *testing.B, path string, size int64, gzipped bool) hproftest.Stats {
	var stats hproftest.Stats
	writeDumpFile(b, path, gzipped, func(w io.Writer) (err error) {
		stats, err = hproftest.WriteRealistic(w, size, 1, 8)
		return err
	})
	return stats
}

// writeDumpFile creates path and has write write a dump into it, gzipped
// as the JVM writes -gz dumps or plain; it fails the benchmark on any
// error.
func writeDumpFile(b *testing.B, path string, gzipped bool, write func(io.Writer) error) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	var packed *hproftest.JVMGzipWriter
	var dst io.Writer = f
	if gzipped {
		packed = hproftest.NewJVMGzipWriter(f, 1)
		dst = packed
	}
	w := bufio.NewWriterSize(dst, 4<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if packed != nil {
		if cerr := packed.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
}

// logPhases logs the lines of an index build's output that give its
// phases (HPROFCTL_BUILD_TRACE).
func logPhases(b *testing.B, out string) {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "phase ") {
			b.Log(line)
		}
	}
}

// checkHugeHisto compares the instance counts of histo's JSON with the
// writer's, class by class.
func checkHugeHisto(b *testing.B, out string, stats hproftest.Stats) {
	got, _ := histoCounts(b, out)
	for name, want := range stats.PerClass {
		if n := got[model.JavaClassName(name)]; n != want.Instances {
			b.Errorf("%s: %d instances in histo, the writer wrote %d", name, n, want.Instances)
		}
	}
	b.Logf("histo: the %d classes' instance counts are the writer's", len(stats.PerClass))
}

// histoCounts reads histo's JSON: the instances of each class, and of
// all of them.
func histoCounts(b *testing.B, out string) (byClass map[string]int64, total int64) {
	var rows []struct {
		Class     string `json:"class"`
		Instances int64  `json:"instances"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		b.Fatalf("histo: %v\n%.400s", err, out)
	}
	byClass = map[string]int64{}
	for _, r := range rows {
		byClass[r.Class] += r.Instances
		total += r.Instances
	}
	return byClass, total
}

// runWatched runs bin argv with HPROFCTL_BUILD_TRACE set and returns its
// output (stdout, then stderr), its wall time, the highest RssAnon seen
// while it ran and the most disk it took under dir (free space before,
// less the least seen), both sampled every 20 ms.
func runWatched(b *testing.B, bin string, argv []string, dir string) (string, time.Duration, int64, int64) {
	cmd := exec.Command(bin, argv...)
	cmd.Env = append(os.Environ(), buildTraceEnv+"=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var (
		peak, disk int64
		wg         sync.WaitGroup
	)
	freeBefore, known := freeDisk(dir)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, rssAnon(status))
			if free, ok := freeDisk(dir); ok && known {
				disk = max(disk, freeBefore-free)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	took := time.Since(start)
	close(done)
	wg.Wait()
	if err != nil {
		b.Fatalf("%v: %v\n%s", argv, err, stderr.String())
	}
	return stdout.String() + stderr.String(), took, peak, disk
}

// rssAnon reads RssAnon from a /proc status file, in bytes; 0 when it
// cannot.
func rssAnon(status string) int64 {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
