package threaddump

import (
	"testing"

	"github.com/hprofctl/hprofctl/model/thread"
)

func TestParseHotspotHeader(t *testing.T) {
	for _, c := range []struct {
		line string
		want thread.Snapshot
		ok   bool
	}{
		{`"worker-1" #12 daemon prio=5 os_prio=0 cpu=1.49ms elapsed=1.81s tid=0x00007f0001 nid=0x71a5 waiting for monitor entry  [0x00007f0002]`,
			thread.Snapshot{Name: "worker-1", ID: "12", Daemon: true}, true},
		{`"main" #1 [15813] prio=5 os_prio=0 cpu=100.75ms elapsed=6.49s tid=0x00007f735c02a860 nid=15813 waiting on condition  [0x00007f736111e000]`,
			thread.Snapshot{Name: "main", ID: "1"}, true},
		{`"pool "a" #2" #13 daemon prio=5 tid=0x1 nid=0x2 in Object.wait() [0x3]`,
			thread.Snapshot{Name: `pool "a" #2`, ID: "13", Daemon: true}, true},
		{`"VM Thread" os_prio=0 cpu=3.21ms elapsed=9.78s tid=0x00007f059c04d370 nid=0x3b74 runnable  `,
			thread.Snapshot{Name: "VM Thread"}, true},
		{`"Finalizer" daemon prio=10 tid=0x0000000001d4b800 nid=0x1b28 in Object.wait() [0x000000001aa1f000]`,
			thread.Snapshot{Name: "Finalizer", Daemon: true}, true},
		{`"pair-a":`, thread.Snapshot{}, false},
		{`"quoted text" in a log line`, thread.Snapshot{}, false},
		{`"`, thread.Snapshot{}, false},
	} {
		got, ok := parseHotspotHeader(c.line)
		if ok != c.ok || got.Name != c.want.Name || got.ID != c.want.ID || got.Daemon != c.want.Daemon {
			t.Errorf("%s:\n got %+v %v\nwant %+v %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestParsePlainHeader(t *testing.T) {
	got, ok := parsePlainHeader(`#17 "busy "timed" waiter #2" TIMED_WAITING 2026-11-22T23:04:10.569Z`)
	if !ok || got.ID != "17" || got.Name != `busy "timed" waiter #2` || got.State != "TIMED_WAITING" || got.Virtual {
		t.Errorf("got %+v %v", got, ok)
	}
	got, ok = parsePlainHeader(`#40 "" virtual WAITING 2026-11-22T23:04:10.569Z`)
	if !ok || got.ID != "40" || got.Name != "" || !got.Virtual || got.State != "WAITING" {
		t.Errorf("virtual: got %+v %v", got, ok)
	}
	if _, ok := parsePlainHeader("# a comment"); ok {
		t.Error("comment read as a header")
	}
}

func TestParseFrame(t *testing.T) {
	for _, c := range []struct {
		in   string
		want thread.Frame
	}{
		{"java.lang.Thread.run(java.base@17.0.15/Thread.java:840)",
			thread.Frame{Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 840}},
		{"java.base/java.lang.Object.wait0(Native Method)",
			thread.Frame{Class: "java.lang.Object", Method: "wait0", Line: thread.LineNative}},
		{"threads.MixedPair$$Lambda$1/0x00007f0545000c10.run(Unknown Source)",
			thread.Frame{Class: "threads.MixedPair$$Lambda$1/0x00007f0545000c10", Method: "run", Line: thread.LineUnknown}},
		{"app//com.example.Main.<init>(Main.java:12)",
			thread.Frame{Class: "com.example.Main", Method: "<init>", File: "Main.java", Line: 12}},
		{"com.foo.loader/foo@9.0/com.foo.Main.run(Main.java)",
			thread.Frame{Class: "com.foo.Main", Method: "run", File: "Main.java", Line: thread.LineUnknown}},
		{"Main.main(Main.java:3)", thread.Frame{Class: "Main", Method: "main", File: "Main.java", Line: 3}},
	} {
		if got := parseFrame(c.in); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestParseLockLine(t *testing.T) {
	monitor := func(class string, id uint64) thread.Lock {
		return thread.Lock{Kind: thread.LockMonitor, Class: class, ID: id}
	}
	sync := thread.Lock{Kind: thread.LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0xfe0de6c8}
	for _, c := range []struct {
		in      string
		ownable bool
		want    thread.LockUse
		ok      bool
	}{
		{"- waiting to lock <0x00000000fc016ab8> (a com.example.Account)", false,
			thread.LockUse{Lock: monitor("com.example.Account", 0xfc016ab8), Action: thread.Enters}, true},
		{"- waiting to re-lock in wait() <0x0000000687486e48> (a threads.WaitRelock$Mail)", false,
			thread.LockUse{Lock: monitor("threads.WaitRelock$Mail", 0x687486e48), Action: thread.Enters}, true},
		{"- locked <0x0000000687486528> (a java.lang.Class for threads.Init)", false,
			thread.LockUse{Lock: monitor("java.lang.Class for threads.Init", 0x687486528), Action: thread.Holds}, true},
		{"- waiting on <0x000000068740d798> (a java.lang.ref.ReferenceQueue$Lock)", false,
			thread.LockUse{Lock: monitor("java.lang.ref.ReferenceQueue$Lock", 0x68740d798), Action: thread.WaitsOn}, true},
		{"- parking to wait for  <0x00000000fe0de6c8> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)", false,
			thread.LockUse{Lock: sync, Action: thread.Parks}, true},
		{"- <0x00000000fe0de6c8> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)", true,
			thread.LockUse{Lock: sync, Action: thread.Holds}, true},
		{"- waiting to lock <threads.MixedPair$Guard@77837d55>", false,
			thread.LockUse{Lock: thread.Lock{Kind: thread.LockMonitor, Class: "threads.MixedPair$Guard", Name: "threads.MixedPair$Guard@77837d55"}, Action: thread.Enters}, true},
		{"- <0x00000000fe0de6c8> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)", false, thread.LockUse{}, false},
		{"- None", true, thread.LockUse{}, false},
		{"- waiting on <no object reference available>", false, thread.LockUse{}, false},
		{"- eliminated <owner is scalar replaced> (a java.lang.Object)", false, thread.LockUse{}, false},
		{"- lock is eliminated", false, thread.LockUse{}, false},
		{"- locked <0x0000zz> (a X)", false, thread.LockUse{}, false},
	} {
		got, ok := parseLockLine(c.in, c.ownable)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s:\n got %+v %v\nwant %+v %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
