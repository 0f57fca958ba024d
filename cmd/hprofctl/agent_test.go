package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
)

// The genuine hprof agent fixtures of testdata/agent (gen.sh runs the
// classic agent on the programs of testdata/agent/java); the facts the
// tests assert are those of testdata/agent/EXPECTED.md: known from the
// programs or from the JVM's own histogram, Thread.print and ThreadMXBean
// figures of the same process.

func agentFixture(t *testing.T, name string) string {
	return filepath.Join(repoRoot(t), "testdata", "agent", name)
}

// agentHeaps are the two heap=dump fixtures of one program: ASCII and
// binary.
var agentHeaps = []string{"heap-ascii.hprof.txt.gz", "heap-binary.hprof.gz"}

// TestAgentHeapHistogram: every agentfix class has the instances and bytes
// of the JVM's histogram of the same process, in both heap dumps. The one
// exception is binary: the agent writes the Elem[10] of ArrayHolder.SLOTS
// up to its last non-null element (index 6), with 7 as its length, so a
// reader sizes it as 7 elements, 48 bytes instead of the JVM's 56; the
// ASCII dump's sz= keeps the JVM's size.
func TestAgentHeapHistogram(t *testing.T) {
	for _, name := range agentHeaps {
		t.Run(name, func(t *testing.T) {
			jvm := readJVMHistogram(t, agentFixture(t, strings.SplitN(name, ".", 2)[0]+".histo.txt.gz"))
			ours := histoByClass(t, agentFixture(t, name))
			checked := 0
			for class, want := range jvm {
				if !strings.HasPrefix(class, "agentfix.") || class == "agentfix.Shapes" {
					continue
				}
				checked++
				if class == "agentfix.Elem[]" && strings.Contains(name, "binary") {
					want.ShallowBytes = 48
				}
				if got := ours[class]; got.Instances != want.Instances || got.ShallowBytes != want.ShallowBytes {
					t.Errorf("%s: %d instances, %d bytes; want %d, %d", class, got.Instances, got.ShallowBytes, want.Instances, want.ShallowBytes)
				}
			}
			if checked < 15 {
				t.Errorf("only %d agentfix classes in the JVM's histogram", checked)
			}
		})
	}
}

// TestAgentWeakOnly: agentfix.WeakOnly is referenced only by the referent
// of the WeakReference in the static WeakOnly.REF: no strong path from a
// GC root, in the ASCII dump (whose CLS lines follow the OBJ lines of
// their instances) as in the binary one; through weak references, the
// path is static REF, then referent.
func TestAgentWeakOnly(t *testing.T) {
	for _, name := range agentHeaps {
		t.Run(name, func(t *testing.T) {
			path := agentFixture(t, name)
			var strong retainersJSON
			runJSON(t, &strong, "retainers", "--class", `^agentfix\.WeakOnly$`, path)
			if len(strong.Paths) != 0 || strong.Targets != 1 || strong.Unreached != 1 {
				t.Errorf("strong paths %+v (%d targets, %d unreached); want none to the one WeakOnly", strong.Paths, strong.Targets, strong.Unreached)
			}
			var weak retainersJSON
			runJSON(t, &weak, "retainers", "--include-weak", "--class", `^agentfix\.WeakOnly$`, path)
			if len(weak.Paths) != 1 {
				t.Fatalf("%d paths through weak references, want 1", len(weak.Paths))
			}
			var vias []string
			for _, s := range weak.Paths[0].Chain {
				vias = append(vias, s.Via)
			}
			n := len(vias)
			if n < 3 || vias[n-1] != "referent (weak)" || vias[n-2] != "static REF" || weak.Paths[0].Chain[n-1].Class != "agentfix.WeakOnly" {
				t.Errorf("path via %q, want static REF then referent (weak)", vias)
			}
		})
	}
}

// stackHolderFrame returns the depth in thread stack-holder's stack of the
// frame agentfix.StackHolder.hold, from the JVM's Thread.print of the
// process.
func stackHolderFrame(t *testing.T, threadsFile string) int32 {
	t.Helper()
	data, err := os.ReadFile(threadsFile)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), "\n\"stack-holder\"")
	if i < 0 {
		t.Fatalf("%s: no thread stack-holder", threadsFile)
	}
	depth := int32(0)
	for _, line := range strings.Split(string(data[i+1:]), "\n")[1:] {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			t.Fatalf("%s: stack-holder has no frame StackHolder.hold", threadsFile)
		case strings.HasPrefix(line, "at agentfix.StackHolder.hold("):
			return depth
		case strings.HasPrefix(line, "at "):
			depth++
		}
	}
	t.Fatalf("%s: stack-holder has no frame StackHolder.hold", threadsFile)
	return 0
}

// TestAgentStackOnly: the StackOnly object is held only by a local of
// StackHolder.hold on thread stack-holder (which also allocated it), and
// its StackChild only through it. The agent's file records the frame's
// depth, the JVM's Thread.print says which frame that is, and the file
// does not record the thread's stack: the root names the thread (as the
// one that allocated the object, which is what the agent records) and the
// depth, and no method.
func TestAgentStackOnly(t *testing.T) {
	for _, name := range agentHeaps {
		t.Run(name, func(t *testing.T) {
			depth := stackHolderFrame(t, agentFixture(t, strings.SplitN(name, ".", 2)[0]+".threads.txt"))
			var r retainersJSON
			runJSON(t, &r, "retainers", "--class", `^agentfix\.Stack(Only|Child)$`, agentFixture(t, name))
			if len(r.Paths) != 2 || r.Targets != 2 {
				t.Fatalf("paths %+v; want one to StackOnly and one to StackChild", r.Paths)
			}
			for _, p := range r.Paths {
				if p.RootKind != "java-frame" || p.RootThread != "stack-holder" || !p.RootThreadAllocator || p.RootFrame != "" ||
					p.RootFrameDepth == nil || *p.RootFrameDepth != depth || p.Chain[0].Class != "agentfix.StackOnly" {
					t.Errorf("path %+v; want a java-frame root of stack-holder at depth %d (StackHolder.hold), no method named", p, depth)
				}
			}
		})
	}
}

// dominatorRow is one row of `hprofctl dominators -o json`.
type dominatorRow struct {
	ObjectID        string `json:"object_id"`
	Class           string `json:"class"`
	RetainedBytes   int64  `json:"retained_bytes"`
	RetainedObjects int64  `json:"retained_objects"`
}

// retainedByClass returns the retained bytes and objects of the one
// object of class in path's dominator tree.
func retainedByClass(t *testing.T, path, class string) (int64, int64) {
	t.Helper()
	var rows []dominatorRow
	runJSON(t, &rows, "dominators", "--top", "0", "--class", "^"+regexp.QuoteMeta(class)+"$", path)
	if len(rows) != 1 {
		t.Fatalf("%d objects of %s in the dominator tree, want 1", len(rows), class)
	}
	return rows[0].RetainedBytes, rows[0].RetainedObjects
}

// retainedAt returns the retained bytes and objects of the object the
// shortest path to an instance of target reaches through field via.
func retainedAt(t *testing.T, path, target, via string) (int64, int64) {
	t.Helper()
	var r retainersJSON
	runJSON(t, &r, "retainers", "--paths", "1", "--class", "^"+regexp.QuoteMeta(target)+"$", path)
	for _, p := range r.Paths {
		for _, s := range p.Chain {
			if s.Via != via {
				continue
			}
			var rows []dominatorRow
			runJSON(t, &rows, "dominators", "--top", "0", "--class", "^"+regexp.QuoteMeta(s.Class)+"$", path)
			for _, d := range rows {
				if d.ObjectID == s.ObjectID {
					return d.RetainedBytes, d.RetainedObjects
				}
			}
			t.Fatalf("%s (%s) is not in the dominator tree", s.ObjectID, s.Class)
		}
	}
	t.Fatalf("no path to %s through %s", target, via)
	return 0, 0
}

// TestAgentRetainedSizes checks retained sizes known by construction
// (JVM layout, EXPECTED.md). The binary dump holds Catalog.MAP's Node[256]
// table with 248 elements (the agent writes an object array up to its
// last non-null element) and ArrayHolder.SLOTS as 7 elements: their sizes
// there are those of the shorter arrays.
func TestAgentRetainedSizes(t *testing.T) {
	for _, name := range agentHeaps {
		t.Run(name, func(t *testing.T) {
			path := agentFixture(t, name)
			binary := strings.Contains(name, "binary")
			for _, c := range []struct {
				what           string
				bytes, objects int64
				got            func() (int64, int64)
			}{
				{"Buffers.BLOBS", 270_832, 25, func() (int64, int64) { return retainedByClass(t, path, "byte[][]") }},
				{"Tree.NODES", 25_616, 801, func() (int64, int64) { return retainedByClass(t, path, "agentfix.Base[]") }},
				{"Factory.TWIG_KEEP", 2_016, 101, func() (int64, int64) { return retainedByClass(t, path, "agentfix.Twig[]") }},
				{"Factory.LEAVES", 20_040, 1002, func() (int64, int64) { return retainedAt(t, path, "agentfix.Leaf", "static LEAVES") }},
				{"Catalog.MAP", map[bool]int64{false: 10_688, true: 10_688 - 32}[binary], 402, func() (int64, int64) { return retainedAt(t, path, "agentfix.Entry", "static MAP") }},
				{"ArrayHolder.SLOTS", map[bool]int64{false: 120, true: 120 - 8}[binary], 5, func() (int64, int64) { return retainedByClass(t, path, "agentfix.Elem[]") }},
				{"the StackOnly", 32, 2, func() (int64, int64) { return retainedByClass(t, path, "agentfix.StackOnly") }},
			} {
				if b, n := c.got(); b != c.bytes || n != c.objects {
					t.Errorf("%s retains %d bytes in %d objects, want %d in %d", c.what, b, n, c.bytes, c.objects)
				}
			}
			var litter retainersJSON
			runJSON(t, &litter, "retainers", "--class", `^agentfix\.Litter$`, path)
			if litter.Targets != 50 || litter.Unreached != 50 {
				t.Errorf("Litter: %d targets, %d unreached; want 50 unreachable", litter.Targets, litter.Unreached)
			}
		})
	}
}

// TestAgentLeakSuspect: Buffers.BLOBS, a byte[][] of 24 arrays retaining
// 270,832 bytes, is a leak suspect with the byte[][] as its accumulation
// point.
func TestAgentLeakSuspect(t *testing.T) {
	for _, name := range agentHeaps {
		var suspects []struct {
			Accumulation *struct {
				Class         string `json:"class"`
				RetainedBytes int64  `json:"retained_bytes"`
			} `json:"accumulation_point"`
		}
		runJSON(t, &suspects, "leaks", agentFixture(t, name))
		found := false
		for _, s := range suspects {
			found = found || s.Accumulation != nil && s.Accumulation.Class == "byte[][]" && s.Accumulation.RetainedBytes == 270_832
		}
		if !found {
			t.Errorf("%s: no suspect accumulates in the byte[][] of Buffers.BLOBS (270,832 bytes): %+v", name, suspects)
		}
	}
}

// agentSitesByMethod are the allocating methods of the Shapes program with
// the objects each made that are live at the dump (EXPECTED.md): the agent's
// traces of Sub, Mid and Base all start in Base.<init>.
var agentSitesByMethod = map[string]struct {
	class          string
	bytes, objects int64
}{
	"agentfix.Buffers.makeLarge":  {"byte[]", 262_400, 16},
	"agentfix.Factory.makeLeaves": {"agentfix.Leaf", 16_000, 1000},
	"agentfix.Tree.makeSubs":      {"agentfix.Sub", 16_000, 500},
	"agentfix.Buffers.makeSmall":  {"byte[]", 8_320, 8},
	"agentfix.Tree.makeMids":      {"agentfix.Mid", 4_800, 200},
	"agentfix.Factory.makeTwigs":  {"agentfix.Twig", 1_600, 100},
	"agentfix.Tree.makeBases":     {"agentfix.Base", 1_600, 100},
	"agentfix.Catalog.fill":       {"agentfix.Entry", 1_600, 100},
	"agentfix.Factory.makeLitter": {"agentfix.Litter", 800, 50},
}

// TestAgentSitesByMethod: sites --by method names the method that executed
// new, below the constructors, with the live objects each made: from the
// agent's SITES (ASCII) and ALLOC_SITES (binary), and from the allocation
// traces of the heap dumps' objects. Factory.makeTemporaryLeaves made 250
// Leaf that a GC freed: it has no live object and no row. Factory.makeTwigs
// allocated 300 Twig, 100 of them live.
func TestAgentSitesByMethod(t *testing.T) {
	for _, name := range []string{"sites-ascii.hprof.txt.gz", "sites-binary.hprof.gz", "heap-ascii.hprof.txt.gz", "heap-binary.hprof.gz"} {
		t.Run(name, func(t *testing.T) {
			var rows []struct {
				Method         string `json:"method"`
				Class          string `json:"class"`
				LiveBytes      int64  `json:"live_bytes"`
				LiveInstances  int64  `json:"live_instances"`
				AllocInstances int64  `json:"alloc_instances"`
			}
			runJSON(t, &rows, "sites", "--by", "method", agentFixture(t, name))
			seen := map[string]bool{}
			for _, r := range rows {
				seen[r.Method] = true
				if r.Method == "agentfix.Factory.makeTemporaryLeaves" {
					t.Errorf("a row for makeTemporaryLeaves, whose objects were all freed: %+v", r)
				}
				want, ok := agentSitesByMethod[r.Method]
				if !ok {
					continue
				}
				if r.Class != want.class || r.LiveBytes != want.bytes || r.LiveInstances != want.objects {
					t.Errorf("%s: %s, %d bytes, %d live; want %s, %d, %d", r.Method, r.Class, r.LiveBytes, r.LiveInstances, want.class, want.bytes, want.objects)
				}
				if r.Method == "agentfix.Factory.makeTwigs" && strings.HasPrefix(name, "sites") && r.AllocInstances != 300 {
					t.Errorf("makeTwigs allocated %d Twig, want 300", r.AllocInstances)
				}
			}
			for m := range agentSitesByMethod {
				if !seen[m] {
					t.Errorf("no row for %s", m)
				}
			}
		})
	}
}

// TestAgentCPU: Hot.spin runs nine times the loop iterations of
// Hot.light, 4000 calls each: the hot trace of cpu=samples ends in spin,
// with about nine times light's samples; cpu=times ranks spin first with
// 4000 calls, and light has 4000 calls too.
func TestAgentCPU(t *testing.T) {
	var samples []cpuJSON
	runJSON(t, &samples, "cpu", agentFixture(t, "cpu-samples.hprof.txt.gz"))
	counts := map[string]int64{}
	var top string
	for i, s := range samples {
		if i == 0 {
			top = s.method()
		}
		counts[s.method()] += s.Count
	}
	if top != "agentfix.Hot.spin" || counts["agentfix.Hot.light"] == 0 || counts["agentfix.Hot.spin"] < 5*counts["agentfix.Hot.light"] {
		t.Errorf("samples: top trace in %s, spin %d, light %d; want spin on top with about 9 times light's samples", top, counts["agentfix.Hot.spin"], counts["agentfix.Hot.light"])
	}
	var times []cpuJSON
	runJSON(t, &times, "cpu", agentFixture(t, "cpu-times.hprof.txt.gz"))
	calls := map[string]int64{}
	for _, s := range times {
		calls[s.method()] += s.Count
	}
	if len(times) == 0 || times[0].method() != "agentfix.Hot.spin" || calls["agentfix.Hot.spin"] != 4000 || calls["agentfix.Hot.light"] != 4000 || calls["agentfix.Hot.work"] != 1 {
		t.Errorf("times: rank 1 in %v; calls spin %d, light %d, work %d; want spin first, 4000, 4000, 1",
			times[:min(1, len(times))], calls["agentfix.Hot.spin"], calls["agentfix.Hot.light"], calls["agentfix.Hot.work"])
	}
}

// TestAgentMonitorDumpDeadlock: the MONITOR DUMP the agent wrote on SIGQUIT
// holds the cycle cycle-a → cycle-b → cycle-c of the JVM's own report in
// the Thread.print of the same process (threads and monitor classes);
// bystander is blocked behind it; mail-waiter, in Mailbox.wait(), waits
// for nobody although the agent lists it as entering too.
func TestAgentMonitorDumpDeadlock(t *testing.T) {
	jvm := jvmVerdict(t, agentFixture(t, "monitor-deadlock.threads.txt"))
	ours := runDeadlocks(t, agentFixture(t, "monitor-deadlock.hprof.txt.gz"))
	if len(jvm) != 1 || len(ours) != 1 {
		t.Fatalf("%d JVM dumps, %d reports", len(jvm), len(ours))
	}
	if got, want := ourCycles(ours[0], false), jvmCycles(jvm[0], false); !slices.Equal(got, want) || len(want) != 1 {
		t.Errorf("cycles\n got %q\nwant %q (the JVM's report)", got, want)
	}
	var behind []string
	for _, b := range ours[0].BlockedBehind {
		behind = append(behind, b.Name)
	}
	if !slices.Equal(behind, []string{"bystander"}) {
		t.Errorf("blocked behind %q, want bystander", behind)
	}
	var m monitorsJSON
	runJSON(t, &m, "monitors", agentFixture(t, "monitor-deadlock.hprof.txt.gz"))
	for _, row := range m.Monitors {
		if row.Monitor == "agentfix.Mailbox" && (len(row.WaitingToEnter) != 0 || len(row.WaitingToBeNotified) != 1) {
			t.Errorf("Mailbox: entering %q, notified %q; want mail-waiter waiting to be notified only", row.WaitingToEnter, row.WaitingToBeNotified)
		}
	}
}

// jvmBlockedCounts reads the per-thread ThreadMXBean figures the Contention
// program printed (NAME.info.txt): thread name and blocked count.
func jvmBlockedCounts(t *testing.T, path string) map[string]int64 {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int64{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		switch {
		case len(fields) == 5 && fields[0] == "thread" && fields[1] == "blockedCount":
			in = true
		case in && len(fields) == 5:
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatalf("%s: %q", path, sc.Text())
			}
			out[fields[0]] = n
		default:
			in = false
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no ThreadMXBean table", path)
	}
	return out
}

// TestAgentMonitorTime: each of the 50 mc-waiter threads blocked twice on
// the ContendedLock, by the JVM's own count: MONITOR TIME has one row per
// waiter whose count is that thread's blocked count, and the JVM's total
// blocked time lies in the range the agent's printed total stands for.
// The first MONITOR DUMP (--dump 0, taken while mc-holder held the lock)
// has the 50 waiters entering it.
func TestAgentMonitorTime(t *testing.T) {
	path := agentFixture(t, "monitor-contention.hprof.txt.gz")
	jvm := jvmBlockedCounts(t, agentFixture(t, "monitor-contention.info.txt"))
	var m monitorsJSON
	runJSON(t, &m, "monitors", path)
	waiters := 0
	for name, n := range jvm {
		if strings.HasPrefix(name, "mc-waiter-") {
			waiters++
			if n != 2 {
				t.Errorf("the JVM counts %d blocks of %s, the program made 2", n, name)
			}
		}
	}
	if waiters != 50 || len(m.Contended) != 50 {
		t.Fatalf("%d waiters in the JVM's figures, %d MONITOR TIME rows; want 50 each", waiters, len(m.Contended))
	}
	for _, c := range m.Contended {
		name := c.Thread[:max(0, strings.LastIndex(c.Thread, " ("))]
		if want, ok := jvm[name]; !ok || c.Count != want || c.Monitor != "agentfix.ContendedLock" {
			t.Errorf("row %+v: the JVM counts %d blocks of %q", c, want, name)
		}
	}
	if m.TotalMS > 1_481_400 || m.TotalMSMax < 1_481_400 {
		t.Errorf("total %d to %d ms; the JVM's figures sum to about 1,481,400 ms of blocking", m.TotalMS, m.TotalMSMax)
	}
	var first monitorsJSON
	runJSON(t, &first, "monitors", "--dump", "0", path)
	if len(first.Monitors) != 1 || first.Monitors[0].Monitor != "agentfix.ContendedLock" || !strings.HasPrefix(first.Monitors[0].Owner, "mc-holder") ||
		len(first.Monitors[0].WaitingToEnter) != 50 {
		t.Errorf("first MONITOR DUMP %+v; want ContendedLock owned by mc-holder with 50 waiting to enter", first.Monitors)
	}
}
