package model

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// This file turns the lock evidence of agent files and heap dumps into
// ThreadDumps, so the deadlock analysis reads them as it reads thread
// dumps: the hprof agent's MONITOR DUMP, and the java.util.concurrent
// state a HotSpot heap dump holds in its java.lang.Thread objects.

// MonitorDumpThreads returns the MONITOR DUMP of an agent file as a
// ThreadDump, nil when the file has none. Each thread line becomes a
// thread, named after its THREAD START and with the stack of its trace;
// each monitor gives its owner a Holds line, every thread waiting to enter
// it an Enters line and every thread waiting to be notified a WaitsOn
// line. Threads a monitor names that have no thread line are added after
// the others; "<unknown thread>" entries are left out. The JVMTI agent
// names Java monitors by class alone: such a monitor is told apart from
// others of its class by Name, "MONITOR DUMP entry N" (from 1).
func MonitorDumpThreads(p *Profile) *threaddump.ThreadDump {
	md := p.MonitorDump
	if md == nil {
		return nil
	}
	d := &threaddump.ThreadDump{Format: "hprof agent MONITOR DUMP", Truncated: p.Truncated}
	bySerial := map[uint32]int{}
	thread := func(serial uint32) *threaddump.ThreadSnapshot {
		if i, ok := bySerial[serial]; ok {
			return &d.Threads[i]
		}
		t := threaddump.ThreadSnapshot{ID: strconv.FormatUint(uint64(serial), 10)}
		if pt := p.Thread(serial); pt != nil {
			t.Name = pt.Name
		}
		bySerial[serial] = len(d.Threads)
		d.Threads = append(d.Threads, t)
		return &d.Threads[len(d.Threads)-1]
	}
	for _, mt := range md.Threads {
		t := thread(mt.Serial)
		t.State = mt.State
		if mt.State == "BLOCKED" {
			t.StateDetail = "on object monitor"
		}
		if tr := p.Trace(mt.Trace); tr != nil {
			t.Frames = append([]Frame(nil), tr.Frames...)
		}
	}
	for k, m := range md.Monitors {
		l := threaddump.Lock{Kind: threaddump.LockMonitor, Class: m.Monitor.Class, ID: m.Monitor.ID}
		switch {
		case m.Monitor.Raw:
			l = threaddump.Lock{Kind: threaddump.LockRawMonitor, ID: m.Monitor.ID, Name: m.Monitor.Name}
		case l.ID == 0:
			l.Name = fmt.Sprintf("MONITOR DUMP entry %d", k+1)
		}
		add := func(serial uint32, a threaddump.LockAction) {
			if serial != 0 {
				t := thread(serial)
				t.Locks = append(t.Locks, threaddump.ThreadLock{Lock: l, Action: a, Frame: -1})
			}
		}
		if m.Owned {
			add(m.Owner, threaddump.Holds)
		}
		for _, s := range m.WaitingToEnter {
			add(s, threaddump.Enters)
		}
		for _, s := range m.WaitingToBeNotified {
			add(s, threaddump.WaitsOn)
		}
	}
	return d
}

// HeapLocks is the lock evidence of a heap dump: its threads as a
// ThreadDump, and what the dump can and cannot tell about locks.
type HeapLocks struct {
	// Dump holds one thread per java.lang.Thread object that has a name
	// or a stack, with its state when the dump records it, its stack, a
	// Parks line for the synchronizer in its parkBlocker field and a Holds
	// line for each such synchronizer whose exclusiveOwnerThread it is.
	// SynchronizerOwners is set: the owner of every synchronizer a thread
	// parks on is read from the heap.
	Dump *threaddump.ThreadDump
	// Objects gives, for each thread of Dump, its java.lang.Thread
	// object.
	Objects []ObjectIndex
	// StatesKnown is set when the Thread objects hold their JVMTI state
	// (Thread.threadStatus, or Thread.holder.threadStatus on JDK 19+).
	StatesKnown bool
	// Parked is the number of threads parked on a java.util.concurrent
	// synchronizer (owned or not).
	Parked int
	// MonitorRoots is the number of monitor-used GC roots: objects whose
	// monitor some thread holds or waits on, with no word of which
	// thread. HotSpot stopped writing them after JDK 11.
	MonitorRoots int
	// Agent is set for a heap dump of the hprof agent, whose MONITOR DUMP
	// (monitor=y) records what its heap dumps cannot.
	Agent bool
}

// lockClassKinds tells, per class, which lock state ReadHeapLocks reads
// from its instances: "thread" (java.lang.Thread), "holder"
// (Thread$FieldHolder), "sync" (an ownable synchronizer), "" (none).
func (h *Heap) lockClassKinds() []string {
	kinds := make([]string, len(h.Classes))
	for c := range h.Classes {
		for s := range h.Supers(ClassIndex(c)) {
			switch h.Classes[s].Name {
			case "java.lang.Thread":
				kinds[c] = "thread"
			case "java.lang.Thread$FieldHolder":
				kinds[c] = "holder"
			case "java.util.concurrent.locks.AbstractOwnableSynchronizer":
				kinds[c] = "sync"
			}
			if kinds[c] != "" {
				break
			}
		}
	}
	return kinds
}

// threadFields is what ReadHeapLocks collects from one Thread,
// Thread$FieldHolder or ownable synchronizer object.
type threadFields struct {
	name, blocker, holder, owner uint64
	status                       uint32
	hasStatus                    bool
	tid                          int64
	daemon                       bool
}

// ReadHeapLocks reads the objects of the heap dump h was loaded from that
// hold lock state again (through its DumpReader; only those objects'
// records where the file allows, see visitObjects) and collects the lock state its java.lang.Thread
// objects and ownable synchronizers hold: each thread's name, tid, daemon
// flag and state, the synchronizer it is parked on (parkBlocker) and that
// synchronizer's exclusiveOwnerThread. Monitors leave no owner in a heap
// dump; only MonitorRoots counts them.
func ReadHeapLocks(h *Heap) (*HeapLocks, error) {
	out := &HeapLocks{Dump: &threaddump.ThreadDump{Format: "heap dump", SynchronizerOwners: true, Truncated: h.Truncated}, Agent: h.Source.Producer == "hprof-agent"}
	for _, r := range h.Roots {
		if r.Kind == RootMonitorUsed {
			out.MonitorRoots++
		}
	}
	kinds := h.lockClassKinds()
	kind := func(c ClassIndex) string {
		if c == NoClass || int(c) >= len(kinds) {
			return ""
		}
		return kinds[c]
	}
	var holding []ObjectIndex
	for i := range h.NumObjects() {
		if kind(h.ClassOf(ObjectIndex(i))) != "" {
			holding = append(holding, ObjectIndex(i))
		}
	}
	fields := map[uint64]*threadFields{}
	holders := map[uint64]*threadFields{}
	owners := map[uint64]uint64{}
	order := binary.BigEndian
	err := h.visitObjects(holding, func(r hprof.Source, rec *hprof.Record) error {
		if rec.Sub != hprof.SubInstanceDump {
			return nil
		}
		c, ok := h.ClassByID(rec.Instance.ClassID)
		if !ok {
			return nil
		}
		k := kind(c)
		if k == "" {
			return nil
		}
		data, err := r.Payload()
		if err != nil {
			return err
		}
		f := &threadFields{}
		h.eachField(c, data, func(fd *Field, _ bool, v []byte) {
			switch {
			case fd.Type == TypeObject && fd.Name == "name":
				f.name = r.ID(v)
			case fd.Type == TypeObject && fd.Name == "parkBlocker":
				f.blocker = r.ID(v)
			case fd.Type == TypeObject && fd.Name == "holder":
				f.holder = r.ID(v)
			case fd.Type == TypeObject && fd.Name == "exclusiveOwnerThread":
				f.owner = r.ID(v)
			case fd.Type == TypeInt && fd.Name == "threadStatus":
				f.status, f.hasStatus = order.Uint32(v), true
			case fd.Type == TypeLong && fd.Name == "tid":
				f.tid = int64(order.Uint64(v))
			case fd.Type == TypeBoolean && fd.Name == "daemon":
				f.daemon = v[0] != 0
			}
		})
		switch k {
		case "thread":
			fields[rec.Instance.ID] = f
		case "holder":
			holders[rec.Instance.ID] = f
		case "sync":
			if f.owner != 0 {
				owners[rec.Instance.ID] = f.owner
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	traces := map[ObjectIndex]int32{}
	for _, t := range h.Threads {
		traces[t.Object] = t.Trace
	}
	var strs []ObjectIndex
	for _, f := range fields {
		if s, ok := h.Lookup(f.name); ok {
			strs = append(strs, s)
		}
	}
	names, err := ReadStrings(h, strs)
	if err != nil {
		return nil, err
	}
	objs := make([]ObjectIndex, 0, len(fields))
	for id := range fields {
		if o, ok := h.Lookup(id); ok {
			objs = append(objs, o)
		}
	}
	slices.SortFunc(objs, func(a, b ObjectIndex) int { return cmp.Compare(h.ObjectID(a), h.ObjectID(b)) })
	threadOf := map[uint64]int{}
	for _, o := range objs {
		f := fields[h.ObjectID(o)]
		if hf, ok := holders[f.holder]; ok {
			f.status, f.hasStatus, f.daemon = hf.status, hf.hasStatus, hf.daemon
		}
		t := threaddump.ThreadSnapshot{ID: strconv.FormatInt(f.tid, 10), Daemon: f.daemon}
		if s, ok := h.Lookup(f.name); ok {
			t.Name = names[s]
		}
		if tr, ok := traces[o]; ok && tr >= 0 && int(tr) < len(h.Traces) {
			t.Frames = append([]Frame(nil), h.Traces[tr].Frames...)
		}
		if t.Name == "" && len(t.Frames) == 0 {
			continue
		}
		if f.hasStatus {
			out.StatesKnown = true
			t.State, t.StateDetail = ThreadStatusState(f.status)
		}
		threadOf[h.ObjectID(o)] = len(out.Dump.Threads)
		out.Dump.Threads = append(out.Dump.Threads, t)
		out.Objects = append(out.Objects, o)
	}
	for i, o := range out.Objects {
		b := fields[h.ObjectID(o)].blocker
		bo, ok := h.Lookup(b)
		if !ok || kind(h.ClassOf(bo)) != "sync" {
			continue
		}
		l := threaddump.Lock{Kind: threaddump.LockSynchronizer, Class: h.Classes[h.ClassOf(bo)].Name, ID: b}
		out.Parked++
		th := &out.Dump.Threads[i]
		th.Locks = append(th.Locks, threaddump.ThreadLock{Lock: l, Action: threaddump.Parks, Frame: -1})
		if k, ok := threadOf[owners[b]]; ok {
			ot := &out.Dump.Threads[k]
			if !ot.Owns(l) {
				ot.Locks = append(ot.Locks, threaddump.ThreadLock{Lock: l, Action: threaddump.Holds, Frame: -1})
			}
		}
	}
	return out, nil
}

// The JVMTI thread state bits java.lang.Thread.threadStatus holds.
const (
	jvmtiAlive          = 0x0001
	jvmtiTerminated     = 0x0002
	jvmtiRunnable       = 0x0004
	jvmtiWaitingForever = 0x0010
	jvmtiWaitingTimeout = 0x0020
	jvmtiSleeping       = 0x0040
	jvmtiParked         = 0x0200
	jvmtiMonitorEnter   = 0x0400
)

// ThreadStatusState maps a JVMTI thread state word (the threadStatus
// field of a java.lang.Thread) to the java.lang.Thread.State name, with
// the detail HotSpot's thread dumps print after it ("on object monitor",
// "parking", "sleeping"; empty otherwise).
func ThreadStatusState(s uint32) (state, detail string) {
	switch {
	case s&jvmtiRunnable != 0:
		return "RUNNABLE", ""
	case s&jvmtiMonitorEnter != 0:
		return "BLOCKED", "on object monitor"
	case s&(jvmtiWaitingForever|jvmtiWaitingTimeout) != 0:
		state = "WAITING"
		if s&jvmtiWaitingTimeout != 0 {
			state = "TIMED_WAITING"
		}
		switch {
		case s&jvmtiParked != 0:
			detail = "parking"
		case s&jvmtiSleeping != 0:
			detail = "sleeping"
		default:
			detail = "on object monitor"
		}
		return state, detail
	case s&jvmtiTerminated != 0:
		return "TERMINATED", ""
	case s&jvmtiAlive == 0:
		return "NEW", ""
	}
	return "RUNNABLE", ""
}
