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
// tables mapped from scratch files, and what the phase made the disk do:
// the bytes it read from storage and first dirtied in the page cache
// (read_bytes and write_bytes of /proc/self/io; a mapped table's page
// counts once each time it is dirtied after being written back) and its
// major page faults (pages a mapping had to wait for the disk for); and a
// line as each of the jobs the build runs side by side ends, with the
// time since its phase began (session.Options.Step). For measuring
// builds; the lines are no interface.
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
	disk  procDisk      // the process's disk traffic as the phase began
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
	now, cpu, disk := time.Now(), procCPU(), readProcDisk()
	if d.phase != "" {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		anon, peak := procMemory()
		fmt.Fprintf(d.trace, "phase %-22s %6.2fs  cpu %6.2fs  go-heap %9s  rss-anon %9s  peak-anon %9s  peak-rss %9s  mapped %9s  disk-read %9s  disk-dirtied %9s  major-faults %d\n", d.phase,
			now.Sub(d.began).Seconds(), (cpu - d.cpu).Seconds(), humanize.IBytes(ms.HeapInuse), humanize.IBytes(anon),
			humanize.IBytes(uint64(bigmem.PeakAnonymous())), humanize.IBytes(peak), humanize.IBytes(uint64(bigmem.MappedBytes())),
			humanize.IBytes(disk.read-d.disk.read), humanize.IBytes(disk.dirtied-d.disk.dirtied), disk.majorFaults-d.disk.majorFaults)
	}
	d.phase, d.began, d.cpu, d.disk = name, now, cpu, disk
}

// step shows in the trace that job name of a build ended.
func (d *buildDisplay) step(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.trace != nil {
		fmt.Fprintf(d.trace, "step  %-34s %7.2fs into %s\n", name, time.Since(d.began).Seconds(), d.phase)
	}
}

// procDisk is the disk traffic of the process so far: bytes read from
// storage, bytes of page-cache pages it dirtied, and its major page
// faults; zero where the system does not say.
type procDisk struct {
	read, dirtied, majorFaults uint64
}

// readProcDisk reads the process's disk traffic from /proc/self/io and
// /proc/self/stat.
func readProcDisk() procDisk {
	var d procDisk
	if io, err := os.ReadFile("/proc/self/io"); err == nil {
		for _, line := range strings.Split(string(io), "\n") {
			name, value, _ := strings.Cut(line, ": ")
			n, _ := strconv.ParseUint(value, 10, 64)
			switch name {
			case "read_bytes":
				d.read = n
			case "write_bytes":
				d.dirtied = n
			}
		}
	}
	if fields := procStatFields(); len(fields) > 9 {
		d.majorFaults, _ = strconv.ParseUint(fields[9], 10, 64)
	}
	return d
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
	// utime and stime are the 12th and 13th fields after the name.
	fields := procStatFields()
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

// procStatFields returns the fields of /proc/self/stat after the
// command's name, which is in parentheses and may hold spaces (majflt is
// the 10th of them); nil where the system does not say.
func procStatFields() []string {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
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
