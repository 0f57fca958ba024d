package threads

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// TestReadHeapLocks reads the heap dump LockPair's process wrote right after
// its jstack -l dump (testdata/threads): lock-a parks on the synchronizer
// the JVM printed lock-a "parking to wait for" and lock-b owns it, and the
// reverse; both threads are WAITING (parking), as jstack printed them.
func TestReadHeapLocks(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "threads")
	path := filepath.Join(dir, "heap", "jdk17-lock-pair.hprof.gz")
	h := testload.Heap(t, path)
	hl, err := ReadHeapLocks(h)
	if err != nil {
		t.Fatal(err)
	}
	if !hl.StatesKnown || hl.MonitorRoots != 0 || !hl.Dump.SynchronizerOwners {
		t.Errorf("states known %v, monitor roots %d, owners %v", hl.StatesKnown, hl.MonitorRoots, hl.Dump.SynchronizerOwners)
	}
	parking := jstackParking(t, filepath.Join(dir, "jdk17-lock-pair.jstack.txt"))
	for name, other := range map[string]string{"lock-a": "lock-b", "lock-b": "lock-a"} {
		th := snapshotNamed(t, hl.Dump, name)
		if th.State != "WAITING" || th.StateDetail != "parking" {
			t.Errorf("%s: %s (%s), want WAITING (parking)", name, th.State, th.StateDetail)
		}
		w := th.Waits()
		if len(w) != 1 || w[0].Action != thread.Parks || w[0].Lock.ID != parking[name] || w[0].Lock.Kind != thread.LockSynchronizer {
			t.Fatalf("%s waits for %+v, jstack: parking on %#x", name, w, parking[name])
		}
		if !snapshotNamed(t, hl.Dump, other).Owns(w[0].Lock) {
			t.Errorf("%s does not own %+v", other, w[0].Lock)
		}
	}
}

// jstackParking reads the address each thread of a jstack dump is
// "parking to wait for", from its first stack.
func jstackParking(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^"([^"]+)" #\d+[^\n]*\n(?:[^\n]+\n)*?\t- parking to wait for  <0x([0-9a-f]+)>`)
	out := map[string]uint64{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		if _, seen := out[m[1]]; !seen {
			out[m[1]], _ = strconv.ParseUint(m[2], 16, 64)
		}
	}
	return out
}

// TestReadHeapLocksLatch reads the heap fixtures of testdata/jvm on JDK 17
// (Thread.threadStatus) and JDK 25 (Thread.holder.threadStatus): the
// thread "fixture-holder" awaits a CountDownLatch nobody counts down
// (StackHolder.java), so it is WAITING, parked on the latch's Sync, which
// has no owner.
func TestReadHeapLocksLatch(t *testing.T) {
	for _, name := range []string{"jdk17-default.hprof.gz", "jdk25-default.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "jvm", name)
			hl, err := ReadHeapLocks(testload.Heap(t, path))
			if err != nil {
				t.Fatal(err)
			}
			th := snapshotNamed(t, hl.Dump, "fixture-holder")
			if th.State != "WAITING" || th.StateDetail != "parking" {
				t.Errorf("fixture-holder: %s (%s), want WAITING (parking)", th.State, th.StateDetail)
			}
			w := th.Waits()
			if len(w) != 1 || w[0].Lock.Class != "java.util.concurrent.CountDownLatch$Sync" {
				t.Fatalf("fixture-holder waits for %+v", w)
			}
			for _, o := range hl.Dump.Threads {
				if o.Owns(w[0].Lock) {
					t.Errorf("%s owns the latch", o.Name)
				}
			}
		})
	}
}

// TestParkedStatusWords reads the raw JVMTI state words of the threads
// the fixture tests above expect WAITING (parking): on JDK 17 in
// Thread.threadStatus, on JDK 25 in Thread.holder.threadStatus. Each is
// the specification's ALIVE|WAITING|WAITING_INDEFINITELY|PARKED.
func TestParkedStatusWords(t *testing.T) {
	s := jvmtiSpec
	want := s.Alive | s.Waiting | s.WaitingIndefinitely | s.Parked
	for _, c := range []struct {
		path    string
		threads []string
	}{
		{filepath.Join("..", "..", "testdata", "threads", "heap", "jdk17-lock-pair.hprof.gz"), []string{"lock-a", "lock-b"}},
		{filepath.Join("..", "..", "testdata", "jvm", "jdk17-default.hprof.gz"), []string{"fixture-holder"}},
		{filepath.Join("..", "..", "testdata", "jvm", "jdk25-default.hprof.gz"), []string{"fixture-holder"}},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			h := testload.Heap(t, c.path)
			hl, err := ReadHeapLocks(h)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range c.threads {
				k := slices.IndexFunc(hl.Dump.Threads, func(th thread.Snapshot) bool { return th.Name == name })
				if k < 0 {
					t.Fatalf("no thread %q", name)
				}
				status, ok := statusWord(t, h, hl.Objects[k])
				if !ok || status != want {
					t.Errorf("%s: threadStatus %#x (read %v), want %#x", name, status, ok, want)
				}
			}
		})
	}
}

// statusWord reads the JVMTI state word of Thread object o: its
// threadStatus field, or its holder's.
func statusWord(t *testing.T, h *model.Heap, o model.ObjectIndex) (uint32, bool) {
	t.Helper()
	fields, err := readLockFields(h, []model.ObjectIndex{o})
	if err != nil {
		t.Fatal(err)
	}
	f := fields[o]
	if holder, ok := h.Lookup(f.holder); ok && f.holder != 0 {
		if fields, err = readLockFields(h, []model.ObjectIndex{holder}); err != nil {
			t.Fatal(err)
		}
		f = fields[holder]
	}
	return f.status, f.hasStatus
}
