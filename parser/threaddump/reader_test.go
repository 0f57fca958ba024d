package threaddump_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// fixtureDir holds the dumps testdata/threads/gen.sh made of the fixture
// programs in testdata/threads/java.
var fixtureDir = filepath.Join("..", "..", "testdata", "threads")

// fixtures returns the fixture dump files matching a glob of fixtureDir.
func fixtures(t testing.TB, glob string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureDir, glob))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "-java-version.txt") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fixture matches %s", glob)
	}
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readAll reads every dump of data.
func readAll(data []byte) ([]*thread.Dump, error) {
	r := threaddump.NewReader(bytes.NewReader(data), threaddump.Options{Name: "input"})
	var dumps []*thread.Dump
	for r.Next() {
		dumps = append(dumps, r.Dump())
	}
	return dumps, r.Err()
}

// readOne reads data that must hold exactly one complete dump.
func readOne(t *testing.T, data []byte) *thread.Dump {
	t.Helper()
	dumps, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 1 {
		t.Fatalf("%d dumps, want 1", len(dumps))
	}
	if dumps[0].Truncated {
		t.Fatal("dump marked truncated")
	}
	return dumps[0]
}

func threadNamed(t *testing.T, d *thread.Dump, name string) *thread.Snapshot {
	t.Helper()
	for i := range d.Threads {
		if d.Threads[i].Name == name {
			return &d.Threads[i]
		}
	}
	t.Fatalf("no thread %q", name)
	return nil
}

// smrLength matches HotSpot's count of its Java threads,
// "_java_thread_list=0x…, length=15, elements={".
var smrLength = regexp.MustCompile(`_java_thread_list=0x[0-9a-f]+, length=(\d+),`)

// TestHotSpotThreadCount checks, for every HotSpot fixture, that the
// threads with a Java thread id are as many as the Java threads HotSpot
// lists in its "Threads class SMR info", and that VM-internal threads
// (no id) are read too.
func TestHotSpotThreadCount(t *testing.T) {
	for _, path := range append(fixtures(t, "*.jstack.txt"), fixtures(t, "*.jcmd.txt")...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := readFile(t, path)
			d := readOne(t, data)
			g := smrLength.FindSubmatch(data)
			if g == nil {
				t.Fatal("no SMR info in the fixture")
			}
			want, _ := strconv.Atoi(string(g[1]))
			java, internal := 0, 0
			for _, th := range d.Threads {
				if th.ID != "" {
					java++
				} else {
					internal++
				}
			}
			if java != want {
				t.Errorf("%d Java threads, HotSpot lists %d", java, want)
			}
			if threadNamed(t, d, "VM Thread").ID != "" || internal == 0 {
				t.Errorf("VM-internal threads: %d, VM Thread id %q", internal, threadNamed(t, d, "VM Thread").ID)
			}
			if d.Format != "HotSpot thread dump" || !strings.Contains(d.VM, "OpenJDK 64-Bit Server VM") || d.Time == "" {
				t.Errorf("format %q, VM %q, time %q", d.Format, d.VM, d.Time)
			}
			if !d.SynchronizerOwners {
				t.Error("-l dump: synchronizer owners not recorded")
			}
		})
	}
}

// threadCount matches the JSON dump's count of the threads of a container.
var threadCount = regexp.MustCompile(`"threadCount": "?(\d+)"?`)

// TestJSONThreadCount checks that a JSON dump yields as many threads as
// its containers count.
func TestJSONThreadCount(t *testing.T) {
	for _, path := range fixtures(t, "*.json") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := readFile(t, path)
			d := readOne(t, data)
			want := 0
			for _, g := range threadCount.FindAllSubmatch(data, -1) {
				n, _ := strconv.Atoi(string(g[1]))
				want += n
			}
			if len(d.Threads) != want {
				t.Errorf("%d threads, the dump counts %d", len(d.Threads), want)
			}
			if d.Format != "JSON thread dump" || !strings.HasPrefix(d.VM, "25.") || d.Time == "" {
				t.Errorf("format %q, VM %q, time %q", d.Format, d.VM, d.Time)
			}
		})
	}
}

// TestBusyThreads checks the threads of the Busy program (testdata/threads/
// java/src/threads/Busy.java) in every dump of it: their states and the
// locks the program makes them hold, wait on, enter and park on.
func TestBusyThreads(t *testing.T) {
	for _, path := range fixtures(t, "*-busy.*") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d := readOne(t, readFile(t, path))
			hotspot := d.Format == "HotSpot thread dump"
			states := map[string]string{
				"busy-waiter": "WAITING", `busy "timed" waiter #2`: "TIMED_WAITING", "busy-sleeper": "TIMED_WAITING",
				"busy-blocked": "BLOCKED", "busy-parked": "WAITING", "busy-condition": "WAITING",
				"busy-spinner": "RUNNABLE", "busy-relock": "BLOCKED", "busy-notifier": "TIMED_WAITING",
			}
			for name, state := range states {
				th := threadNamed(t, d, name)
				if th.State != state {
					t.Errorf("%s: state %s, want %s", name, th.State, state)
				}
				if th.Daemon != hotspot {
					t.Errorf("%s: daemon %v (only HotSpot dumps print it; every fixture thread is one)", name, th.Daemon)
				}
			}
			lock := func(name string, action thread.LockAction, class string) thread.Lock {
				t.Helper()
				for _, l := range threadNamed(t, d, name).Locks {
					if l.Action == action && l.Lock.Class == class {
						return l.Lock
					}
				}
				t.Errorf("%s: no %s lock of class %s", name, action, class)
				return thread.Lock{}
			}
			resource := lock("busy-sleeper", thread.Holds, "threads.Busy$Resource")
			if got := lock("busy-blocked", thread.Enters, "threads.Busy$Resource"); got != resource {
				t.Errorf("busy-blocked enters %+v, busy-sleeper holds %+v", got, resource)
			}
			if !threadNamed(t, d, "busy-sleeper").Owns(resource) {
				t.Error("busy-sleeper does not own the Resource monitor")
			}
			mailbox := lock("busy-waiter", thread.WaitsOn, "threads.Busy$Mailbox")
			if threadNamed(t, d, "busy-waiter").Owns(mailbox) {
				t.Error("busy-waiter owns the monitor it waits on")
			}
			signal := lock("busy-notifier", thread.Holds, "threads.Busy$Signal")
			if hotspot {
				// Only HotSpot dumps say which monitor a notified waiter
				// re-enters; it still lists the monitor as locked below.
				if got := lock("busy-relock", thread.Enters, "threads.Busy$Signal"); got != signal {
					t.Errorf("busy-relock re-enters %+v, busy-notifier holds %+v", got, signal)
				}
				if threadNamed(t, d, "busy-relock").Owns(signal) {
					t.Error("busy-relock owns the monitor it is re-entering")
				}
			}
			sync := "java.util.concurrent.locks.ReentrantLock$NonfairSync"
			parked := lock("busy-parked", thread.Parks, sync)
			if d.SynchronizerOwners {
				if !threadNamed(t, d, "busy-sleeper").Owns(parked) {
					t.Error("busy-sleeper does not own the ReentrantLock busy-parked waits for")
				}
			}
			lock("busy-condition", thread.Parks, "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject")
			if len(threadNamed(t, d, "busy-spinner").Locks) != 0 {
				t.Errorf("busy-spinner has locks: %+v", threadNamed(t, d, "busy-spinner").Locks)
			}
		})
	}
}

// TestFrames checks the frames of a thread against Busy.java and the JDK.
func TestFrames(t *testing.T) {
	for _, path := range fixtures(t, "*-busy.*") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d := readOne(t, readFile(t, path))
			blocked := threadNamed(t, d, "busy-blocked")
			want := thread.Frame{Class: "threads.Busy", Method: "enterResource", File: "Busy.java", Line: 74}
			if len(blocked.Frames) == 0 || blocked.Frames[0] != want {
				t.Fatalf("busy-blocked frames %+v, want %+v first", blocked.Frames, want)
			}
			waiter := threadNamed(t, d, "busy-waiter")
			if !waiter.InObjectWait() || waiter.Frames[0].Line != thread.LineNative {
				t.Errorf("busy-waiter's top frame %+v: not Object.wait, native", waiter.Frames[0])
			}
			for _, l := range waiter.Locks {
				if l.Action == thread.Holds && waiter.Frames[l.Frame].Method != "waitOn" {
					t.Errorf("busy-waiter locked the mailbox in %+v, not in Busy.waitOn", waiter.Frames[l.Frame])
				}
			}
		})
	}
}

// TestApplicationLog reads the SIGQUIT dump the JVM printed into the
// program's own log, between log lines.
func TestApplicationLog(t *testing.T) {
	data := readFile(t, filepath.Join(fixtureDir, "jdk17-monitor-pair.applog.txt"))
	d := readOne(t, data)
	if d.SynchronizerOwners {
		t.Error("a SIGQUIT dump records no ownable synchronizers")
	}
	for _, th := range d.Threads {
		if strings.Contains(th.Name, "heartbeat") {
			t.Errorf("log line read as thread %q", th.Name)
		}
	}
	lines := strings.Split(string(data), "\n")
	if !strings.HasPrefix(lines[d.Line], "Full thread dump") {
		t.Errorf("dump starts at line %d: %q", d.Line, lines[d.Line-1])
	}
	for _, name := range []string{"pair-a", "pair-b", "app-logger", "main"} {
		threadNamed(t, d, name)
	}
}

// TestTwoDumps reads a file holding two jstack dumps of one process.
func TestTwoDumps(t *testing.T) {
	data := readFile(t, filepath.Join(fixtureDir, "jdk17-mixed-pair.two-dumps.txt"))
	dumps, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 2 {
		t.Fatalf("%d dumps, want 2", len(dumps))
	}
	lines := strings.Split(string(data), "\n")
	for _, d := range dumps {
		if d.Truncated || !hotspotTime.MatchString(lines[d.Line-1]) {
			t.Errorf("dump at line %d (%q), truncated %v", d.Line, lines[d.Line-1], d.Truncated)
		}
	}
	if names(dumps[0]) != names(dumps[1]) {
		t.Errorf("the dumps of one process differ: %s / %s", names(dumps[0]), names(dumps[1]))
	}
}

var hotspotTime = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)

func names(d *thread.Dump) string {
	var s []string
	for _, th := range d.Threads {
		s = append(s, th.Name)
	}
	return strings.Join(s, ", ")
}

// TestCutMidThread cuts every fixture inside each of its threads in turn,
// in the middle of a line: the threads before the cut must come out
// exactly as from the whole file, the dump marked truncated, and Err must
// wrap ErrTruncated.
func TestCutMidThread(t *testing.T) {
	for _, path := range fixtures(t, "jdk*") {
		data := readFile(t, path)
		full, err := readAll(data)
		if err != nil || len(full) == 0 {
			t.Fatalf("%s: %v", path, err)
		}
		last := full[len(full)-1]
		for k := 1; k < len(last.Threads); k++ {
			cut := cutInside(t, data, last, k)
			for data[cut-1] == '\n' {
				cut++ // inside a line: a plain-text dump has no end marker
			}
			dumps, err := readAll(data[:cut])
			if len(dumps) != len(full) {
				t.Fatalf("%s cut in thread %d: %d dumps, want %d", filepath.Base(path), k, len(dumps), len(full))
			}
			got := dumps[len(dumps)-1]
			if !got.Truncated || !errors.Is(err, threaddump.ErrTruncated) {
				t.Errorf("%s cut in thread %d: truncated %v, err %v", filepath.Base(path), k, got.Truncated, err)
			}
			if len(got.Threads) < k {
				t.Fatalf("%s cut in thread %d: %d threads", filepath.Base(path), k, len(got.Threads))
			}
			for i := range k {
				if !sameThread(got.Threads[i], last.Threads[i]) {
					t.Errorf("%s cut in thread %d: thread %d differs:\n got %+v\nwant %+v", filepath.Base(path), k, i, got.Threads[i], last.Threads[i])
				}
			}
		}
	}
}

// cutInside returns an offset in the middle of the kth thread of d, the
// last dump of data: halfway between its name and the next thread's (or
// the dump's end marker).
func cutInside(t *testing.T, data []byte, d *thread.Dump, k int) int {
	t.Helper()
	start := nameOffset(data, d.Threads[k].Name, 0)
	end := len(data)
	if k+1 < len(d.Threads) {
		end = nameOffset(data, d.Threads[k+1].Name, start+1)
	} else if jni := bytes.Index(data[start:], []byte("\nJNI global ref")); jni >= 0 {
		end = start + jni
	}
	if start < 0 || end <= start {
		t.Fatalf("thread %q not found in the file", d.Threads[k].Name)
	}
	return start + (end-start)/2
}

// nameOffset finds a thread's name in a dump as its header quotes it (in
// JSON, escaped), searching the last dump of the file.
func nameOffset(data []byte, name string, from int) int {
	quoted := strconv.Quote(name)
	quoted = strings.ReplaceAll(quoted, "/", `\/`)
	base := bytes.LastIndex(data, []byte("Full thread dump"))
	from = max(from, base)
	for _, needle := range []string{`"` + name + `" `, quoted + ","} {
		if i := bytes.Index(data[from:], []byte(needle)); i >= 0 {
			return from + i
		}
	}
	return -1
}

func sameThread(a, b thread.Snapshot) bool {
	if a.Name != b.Name || a.ID != b.ID || a.State != b.State || len(a.Frames) != len(b.Frames) || len(a.Locks) != len(b.Locks) {
		return false
	}
	for i := range a.Frames {
		if a.Frames[i] != b.Frames[i] {
			return false
		}
	}
	for i := range a.Locks {
		if a.Locks[i] != b.Locks[i] {
			return false
		}
	}
	return true
}

// TestNotAThreadDump checks the errors for input that holds no dump.
func TestNotAThreadDump(t *testing.T) {
	for _, c := range []struct {
		name, input, msg string
	}{
		{"empty", "", "no thread dump found"},
		{"log", "2026-01-01 INFO started\n2026-01-01 INFO stopped\n", "no thread dump found"},
		{"hprof", "JAVA PROFILE 1.0.2\x00\x00\x00\x00\x08", "HPROF heap dump"},
		{"bad json", `{"threadDump": {"threadContainers": [{"threads": [{"tid": "1", "name": }]}]}}`, "JSON thread dump"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dumps, err := readAll([]byte(c.input))
			var fe *threaddump.FormatError
			if len(dumps) != 0 || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("%d dumps, error %v; want a FormatError about %q", len(dumps), err, c.msg)
			}
		})
	}
}

// TestInterleavedLogLines inserts unindented log lines, as another writer
// to the same log would, between the lines of a dump's threads, and CRLF
// line ends: the dump must read as before.
func TestInterleavedLogLines(t *testing.T) {
	data := readFile(t, filepath.Join(fixtureDir, "jdk17-busy.jstack.txt"))
	want := readOne(t, data)
	var mixed bytes.Buffer
	for i, line := range strings.SplitAfter(string(data), "\n") {
		if i%7 == 3 {
			mixed.WriteString("2026-01-01 12:00:00 WARN  [other] queue backlog 12\r\n")
		}
		mixed.WriteString(strings.TrimSuffix(line, "\n"))
		if strings.HasSuffix(line, "\n") {
			mixed.WriteString("\r\n")
		}
	}
	got := readOne(t, mixed.Bytes())
	if len(got.Threads) != len(want.Threads) {
		t.Fatalf("%d threads, want %d", len(got.Threads), len(want.Threads))
	}
	for i := range want.Threads {
		if !sameThread(got.Threads[i], want.Threads[i]) {
			t.Errorf("thread %d differs:\n got %+v\nwant %+v", i, got.Threads[i], want.Threads[i])
		}
	}
}

// TestJSONParkBlockerOwner reads the "owner" newer JDKs add to a park
// blocker: the owner then holds the synchronizer.
func TestJSONParkBlockerOwner(t *testing.T) {
	const dump = `{"threadDump": {"processId": "7", "time": "2026-01-01T00:00:00Z", "runtimeVersion": "26",
  "threadContainers": [{"container": "<root>", "parent": null, "owner": null, "threads": [
    {"tid": "21", "name": "a", "state": "WAITING",
     "parkBlocker": {"object": "java.util.concurrent.locks.ReentrantLock$NonfairSync@1b", "owner": "22"},
     "stack": ["java.base/jdk.internal.misc.Unsafe.park(Native Method)", "app//demo.A.run(A.java:9)"]},
    {"tid": "22", "name": "b", "state": "BLOCKED", "blockedOn": "demo.Guard@2c",
     "stack": ["demo.B.run(B.java:5)"]},
    {"tid": "23", "name": "c", "state": "RUNNABLE", "stack": ["demo.C.run(C.java:3)"],
     "monitorsOwned": [{"depth": 0, "locks": ["demo.Guard@2c", null]}]}],
  "threadCount": "3"}]}}`
	d := readOne(t, []byte(dump))
	if !d.SynchronizerOwners {
		t.Error("park blocker owners not noted")
	}
	sync := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync",
		Name: "java.util.concurrent.locks.ReentrantLock$NonfairSync@1b"}
	if !threadNamed(t, d, "b").Owns(sync) {
		t.Errorf("b does not own %+v: %+v", sync, threadNamed(t, d, "b").Locks)
	}
	guard := thread.Lock{Kind: thread.LockMonitor, Class: "demo.Guard", Name: "demo.Guard@2c"}
	if !threadNamed(t, d, "c").Owns(guard) || len(threadNamed(t, d, "c").Locks) != 1 {
		t.Errorf("c's locks %+v, want only %+v", threadNamed(t, d, "c").Locks, guard)
	}
	if f := threadNamed(t, d, "a").Frames[1]; f != (thread.Frame{Class: "demo.A", Method: "run", File: "A.java", Line: 9}) {
		t.Errorf("frame with class loader prefix read as %+v", f)
	}
}

// TestPlainDumpsBackToBack reads two plain-text dumps in one file.
func TestPlainDumpsBackToBack(t *testing.T) {
	one := readFile(t, filepath.Join(fixtureDir, "jdk25-busy.plain.txt"))
	dumps, err := readAll(append(append([]byte{}, one...), one...))
	if err != nil || len(dumps) != 2 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	if names(dumps[0]) != names(dumps[1]) || dumps[1].Time == "" || dumps[1].VM == "" {
		t.Errorf("second dump differs: %s, time %q, VM %q", names(dumps[1]), dumps[1].Time, dumps[1].VM)
	}
}
