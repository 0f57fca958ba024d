package main

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/jvmpi/jvmpitest"
)

type monitorsJSON struct {
	TotalMS    int64 `json:"total_ms"`
	TotalMSMax int64 `json:"total_ms_max"`
	Contended  []struct {
		Rank        int     `json:"rank"`
		Monitor     string  `json:"monitor"`
		SelfPercent float64 `json:"self_percent"`
		CumPercent  float64 `json:"cumulative_percent"`
		Count       int64   `json:"count"`
		Trace       uint32  `json:"trace"`
		Thread      string  `json:"thread"`
	} `json:"contended"`
	Monitors []monitorRowJSON `json:"monitors"`
}

type monitorRowJSON struct {
	Monitor             string   `json:"monitor"`
	Owner               string   `json:"owner"`
	EntryCount          int32    `json:"entry_count"`
	WaitingToEnter      []string `json:"waiting_to_enter"`
	WaitingToBeNotified []string `json:"waiting_to_be_notified"`
}

// dumpMonitor is a monitor of a MONITOR DUMP as the file writes it, its
// threads as "thread N" or "<unknown thread>".
type dumpMonitor struct {
	owner    string
	entry    int64
	entering []string
	notified []string
}

func splitThreads(s string) []string {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// fileMonitorDump reads the monitors of the MONITOR DUMP section of path.
func fileMonitorDump(t *testing.T, path string) []dumpMonitor {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dumpMonitor
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "MONITOR DUMP BEGIN":
			in, out = true, nil
		case line == "MONITOR DUMP END":
			in = false
		case !in:
		case strings.HasPrefix(line, "MONITOR ") || strings.HasPrefix(line, "RAW MONITOR "):
			out = append(out, dumpMonitor{entering: []string{}, notified: []string{}})
		case strings.HasPrefix(line, "owner: "):
			owner, entry, _ := strings.Cut(strings.TrimPrefix(line, "owner: "), ", entry count: ")
			out[len(out)-1].owner, out[len(out)-1].entry = owner, atoi(t, entry)
		case strings.HasPrefix(line, "waiting to enter:"):
			out[len(out)-1].entering = splitThreads(strings.TrimPrefix(line, "waiting to enter:"))
		case strings.HasPrefix(line, "waiting to be notified:"):
			out[len(out)-1].notified = splitThreads(strings.TrimPrefix(line, "waiting to be notified:"))
		}
	}
	return out
}

var threadSerial = regexp.MustCompile(`^(?:thread (\d+)|.* \((\d+)\))$`)

// asWritten turns a thread as hprofctl names it ("NAME (N)" or "thread
// N") back into the file's "thread N".
func asWritten(s string) string {
	if m := threadSerial.FindStringSubmatch(s); m != nil {
		return "thread " + m[1] + m[2]
	}
	return s
}

func allAsWritten(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = asWritten(x)
	}
	return out
}

// TestMonitorsASCII checks MONITOR DUMP and MONITOR TIME of the synthetic
// agent files against what the files write: owners, entry counts and
// waiter lists of each monitor, and the rows of MONITOR TIME.
func TestMonitorsASCII(t *testing.T) {
	root := repoRoot(t)
	for _, path := range []string{
		filepath.Join(root, "testdata", "ascii", "jvmti.txt"),
		filepath.Join(root, "testdata", "ascii", "jvmpi.txt"),
		filepath.Join(root, "testdata", "threads", "agent-jvmpi-monitor-cycle.hprof.txt"),
		filepath.Join(root, "testdata", "threads", "agent-jvmti-monitor-cycle.hprof.txt"),
	} {
		want := fileMonitorDump(t, path)
		var got monitorsJSON
		runJSON(t, &got, "monitors", path)
		if len(got.Monitors) != len(want) || len(want) == 0 {
			t.Fatalf("%s: %d monitors, the file dumps %d", path, len(got.Monitors), len(want))
		}
		for i, w := range want {
			g := got.Monitors[i]
			// An unowned monitor has no owner line: both are empty.
			if asWritten(g.Owner) != w.owner || int64(g.EntryCount) != w.entry ||
				!reflect.DeepEqual(allAsWritten(g.WaitingToEnter), w.entering) ||
				!reflect.DeepEqual(allAsWritten(g.WaitingToBeNotified), w.notified) {
				t.Errorf("%s: monitor %d: %+v, the file writes %+v", path, i+1, g, w)
			}
		}
		head, rows := sectionRows(t, path, "MONITOR TIME BEGIN", "MONITOR TIME END", 1)
		if head == "" {
			continue
		}
		// The JVMTI agent prints its millisecond total divided by 10^6,
		// the JVMPI agent the total itself.
		total := head[strings.Index(head, "total = ")+len("total = "):]
		lo, hi := atoi(t, total[:strings.Index(total, " ")]), int64(0)
		if strings.Contains(path, "jvmti") {
			lo, hi = lo*1_000_000, lo*1_000_000+999_999
		} else {
			hi = lo
		}
		if got.TotalMS != lo || got.TotalMSMax != hi || len(got.Contended) != len(rows) {
			t.Fatalf("%s: total %d to %d ms, %d rows; the file's header %q, %d rows", path, got.TotalMS, got.TotalMSMax, len(got.Contended), head, len(rows))
		}
		// rank self accum count trace monitor...
		for i, r := range rows {
			c := got.Contended[i]
			self, _ := strconv.ParseFloat(strings.TrimSuffix(r[1], "%"), 64)
			if strconv.Itoa(c.Rank) != r[0] || c.SelfPercent != self || c.Count != atoi(t, r[3]) || c.Trace != uint32(atoi(t, r[4])) {
				t.Errorf("%s: contended %+v, the file writes %v", path, c, r)
			}
		}
	}
}

// TestMonitorsJVMPICapture checks that monitors reads a JVMPI monitor
// dump capture: every Java and raw monitor with its owner, entry count and
// waiters, threads and raw monitors named from the side channel.
func TestMonitorsJVMPICapture(t *testing.T) {
	const (
		envMain, envWorker, envIdle = 0x7f0000001000, 0x7f0000002000, 0x7f0000003000
		javaObj, rawID, rawPtr      = 0x7c0010000, 0x7f0000100000, 0x7f0000200000
		classID                     = 0x7c0000800
	)
	buf := jvmpitest.NewBuffer(jvmpitest.Options{IDSize: 8, IDOrder: binary.LittleEndian, ScalarOrder: binary.LittleEndian})
	buf.JavaMonitor(javaObj, jvmpitest.Monitor{Owner: envMain, EntryCount: 2, Entering: []uint64{envWorker}, Notified: []uint64{envIdle}})
	buf.RawMonitor(rawPtr, rawID, jvmpitest.Monitor{Owner: envWorker, EntryCount: 1, Entering: []uint64{envMain}})
	ev := &jvmpitest.MonitorEvents{
		Threads: []jvmpitest.ThreadStart{{Name: "main", GroupName: "main", ThreadID: 0x7c0000000, EnvID: envMain},
			{Name: "worker-1", GroupName: "main", ThreadID: 0x7c0000040, EnvID: envWorker},
			{Name: "idle", GroupName: "main", ThreadID: 0x7c0000080, EnvID: envIdle}},
		RawMonitors: []jvmpitest.RawMonitorInfo{{Name: "app_lock", ID: rawID, NamePtr: rawPtr}},
		ClassLoad:   []jvmpitest.ClassName{{Name: "app.Guard", ID: classID}},
		Objects:     []jvmpitest.ObjectAlloc{{ObjectID: javaObj, ClassID: classID, Size: 16}},
		Event: jvmpitest.MonitorDumpEvent{
			Traces:        []jvmpitest.Trace{{EnvID: envMain}, {EnvID: envWorker}, {EnvID: envIdle}},
			ThreadsStatus: []int32{jvmpitest.ThreadMonitorWait, jvmpitest.ThreadMonitorWait, jvmpitest.ThreadCondvarWait},
		},
	}
	manifest, err := jvmpitest.WriteCapture(t.TempDir(), "monitors", buf, jvmpitest.Manifest{Format: jvmpitest.FormatMonitorDump}, ev)
	if err != nil {
		t.Fatal(err)
	}
	want := []monitorRowJSON{
		{Monitor: "app.Guard@0x7c0010000", Owner: "main", EntryCount: 2, WaitingToEnter: []string{"worker-1"}, WaitingToBeNotified: []string{"idle"}},
		{Monitor: "raw monitor app_lock", Owner: "worker-1", EntryCount: 1, WaitingToEnter: []string{"main"}, WaitingToBeNotified: []string{}},
	}
	for _, path := range []string{manifest, strings.TrimSuffix(manifest, ".json") + ".bin"} {
		var got monitorsJSON
		runJSON(t, &got, "monitors", path)
		if !reflect.DeepEqual(got.Monitors, want) {
			t.Errorf("monitors %s:\n%+v\nwant\n%+v", filepath.Base(path), got.Monitors, want)
		}
	}
	out, err := runCLI(t, "monitors", manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"app.Guard@0x7c0010000", "raw monitor app_lock", "worker-1", "idle"} {
		if !strings.Contains(out, s) {
			t.Errorf("the table does not show %q:\n%s", s, out)
		}
	}
}
