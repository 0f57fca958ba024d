package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/report"
)

// buildTraceEnv names the environment variable that makes an index build
// write a line to stderr as each of its phases ends: the phase, its time,
// the processor time the process spent in it (user and system, every
// thread; from /proc/self/stat where there is one), the Go heap in use,
// the process's anonymous resident memory (from /proc/self/status) and
// its peak as sampled (bigmem.PeakAnonymous), the peak of the whole
// resident memory, which counts the mapped tables' pages (VmHWM), and the
// tables mapped from scratch files. For measuring builds; the lines are
// no interface.
const buildTraceEnv = "HPROFCTL_BUILD_TRACE"

// buildDisplay shows an index build: the progress bar while one is drawn,
// and the phase trace when buildTraceEnv asks for it.
type buildDisplay struct {
	mu    sync.Mutex
	bar   *report.Progress
	trace io.Writer // nil: no trace
	phase string
	began time.Time
	cpu   time.Duration // the process's processor time as the phase began
}

// setBar makes bar the one phases are shown on (nil: none).
func (d *buildDisplay) setBar(bar *report.Progress) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.bar = bar
}

// enter shows that phase name of a build begins ("" when it ends), the
// phases before it taking the share before of its time.
func (d *buildDisplay) enter(name string, before float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bar != nil && name != "" {
		d.bar.Phase(name, before)
	}
	if d.trace == nil {
		return
	}
	now, cpu := time.Now(), procCPU()
	if d.phase != "" {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		anon, peak := procMemory()
		fmt.Fprintf(d.trace, "phase %-22s %6.2fs  cpu %6.2fs  go-heap %9s  rss-anon %9s  peak-anon %9s  peak-rss %9s  mapped %9s\n", d.phase,
			now.Sub(d.began).Seconds(), (cpu - d.cpu).Seconds(), humanize.IBytes(ms.HeapInuse), humanize.IBytes(anon),
			humanize.IBytes(uint64(bigmem.PeakAnonymous())), humanize.IBytes(peak), humanize.IBytes(uint64(bigmem.MappedBytes())))
	}
	d.phase, d.began, d.cpu = name, now, cpu
}

// procMemory returns the process's anonymous resident memory (RssAnon)
// and its peak resident memory (VmHWM) in bytes; 0 where the system does
// not say.
func procMemory() (anon, peak uint64) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		var kb uint64
		line := sc.Text()
		if _, err := fmt.Sscanf(line, "RssAnon: %d kB", &kb); err == nil {
			anon = kb << 10
		} else if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			peak = kb << 10
		}
	}
	return anon, peak
}

// clockTicks is the unit of the times in /proc/self/stat (USER_HZ, 100 on
// every Linux architecture Go runs on).
const clockTicks = 100

// procCPU returns the processor time the process has spent, user and
// system, all threads together; 0 where the system does not say.
func procCPU() time.Duration {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: utime and stime are the 12th and 13th.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	var ticks int64
	for _, f := range fields[11:13] {
		t, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0
		}
		ticks += t
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// memoryBudget returns --memory in bytes, 0 for the default.
func (g *globalFlags) memoryBudget() (int64, error) {
	if g.memory == "" {
		return 0, nil
	}
	n, err := humanize.ParseBytes(g.memory)
	if err != nil || n > math.MaxInt64 {
		return 0, fmt.Errorf("--memory %q: expected a size such as 512MiB or 4GiB", g.memory)
	}
	if n < bigmem.MinBudget {
		return 0, fmt.Errorf("--memory %s is too small: an index build keeps its classes, names and roots in memory and needs at least %s; the per-object tables go to scratch files past the budget",
			humanize.IBytes(n), humanize.IBytes(bigmem.MinBudget))
	}
	return int64(n), nil
}
