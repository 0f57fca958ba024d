package jvmpi

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/model/thread"
)

// threadStates maps the status codes of a monitor dump event, flags
// removed, to java.lang.Thread.State names (docs/jvmpi.md#constants).
var threadStates = map[int32]string{
	ThreadRunnable: thread.StateRunnable, ThreadMonitorWait: thread.StateBlocked, ThreadCondvarWait: thread.StateWaiting,
}

// ReadMonitorDump reads the JVMPI monitor dump capture whose manifest
// is at manifest. Its threads are the side channel's thread-start events,
// named and in that order, with their stacks and states from the monitor
// dump event, followed by any thread the buffer names that no event
// announced (named after its JNIEnv*). Each owner holds the monitor, each
// thread waiting to enter it enters it, and each thread waiting to be
// notified waits on it (no wait-for edge: decision 6 of
// docs/jvmpi.md#decisions-where-the-spec-is-silent). Raw
// monitors are named from the side channel by their name pointer; Java
// monitors carry their object's class when an object-alloc event gives it.
// Null JNIEnv* entries (waiters that vanished) are left out.
func ReadMonitorDump(manifest string) (*thread.Dump, []thread.Monitor, error) {
	c, err := LoadCapture(manifest)
	if err != nil {
		return nil, nil, err
	}
	if c.Options.Kind != MonitorDump {
		return nil, nil, fmt.Errorf("%s: a JVMPI %s capture, not a monitor dump", manifest, c.Options.Kind)
	}
	in, err := c.Open()
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	return readMonitors(c, in)
}

// ReadMonitorBuffer reads a bare JVMPI monitor dump buffer from in,
// described by opt (its Kind must be MonitorDump) and named name in
// errors. With no side channel, threads are named by their JNIEnv*, raw
// monitors by their name pointer, and no thread has a stack or a state.
func ReadMonitorBuffer(in io.Reader, name string, opt Options) (*thread.Dump, []thread.Monitor, error) {
	c := BareCapture(name, opt)
	if c.Options.Kind != MonitorDump {
		return nil, nil, fmt.Errorf("%s: a JVMPI %s holds no threads or monitors; read it with the heap commands", name, opt.Kind)
	}
	return readMonitors(c, in)
}

// readMonitors reads the monitor dump buffer in of capture c.
func readMonitors(c *Capture, in io.Reader) (*thread.Dump, []thread.Monitor, error) {
	r, err := NewReader(in, c.Options)
	if err != nil {
		return nil, nil, err
	}
	b := newMonitorDumpBuilder(c.MonitorEvents)
	var monitors []thread.Monitor
	for r.Next() {
		monitors = append(monitors, b.monitor(&r.Record().Monitor))
	}
	if err := r.Err(); err != nil {
		if !errors.Is(err, ErrTruncated) {
			return nil, nil, err
		}
		b.dump.Truncated = true
	}
	return b.dump, monitors, nil
}

// monitorDumpBuilder turns a monitor dump buffer into a thread.Dump, with
// what its side channel tells about threads, stacks and lock names.
type monitorDumpBuilder struct {
	dump *thread.Dump
	// threadAt is the index in dump.Threads of each JNIEnv*.
	threadAt map[uint64]int
	// rawNames names raw monitors by their name pointer, objectClass
	// Java monitors' objects by their id.
	rawNames, objectClass map[uint64]string
}

// newMonitorDumpBuilder starts the dump with the threads of the side
// channel ev, their stacks and their states.
func newMonitorDumpBuilder(ev *MonitorEvents) *monitorDumpBuilder {
	b := &monitorDumpBuilder{dump: &thread.Dump{Format: "JVMPI monitor dump"}, threadAt: map[uint64]int{},
		rawNames: map[uint64]string{}, objectClass: map[uint64]string{}}
	for _, t := range ev.Threads {
		b.threadAt[uint64(t.EnvID)] = len(b.dump.Threads)
		b.dump.Threads = append(b.dump.Threads, thread.Snapshot{Name: t.Name, ID: fmt.Sprintf("0x%x", uint64(t.EnvID))})
	}
	b.addStacks(ev)
	for _, m := range ev.RawMonitors {
		b.rawNames[uint64(m.NamePtr)] = m.Name
	}
	classNames := map[uint64]string{}
	for _, cl := range ev.Classes {
		classNames[uint64(cl.ID)] = cl.Name
	}
	for _, o := range ev.Objects {
		b.objectClass[uint64(o.ObjectID)] = classNames[uint64(o.ClassID)]
	}
	return b
}

// threadOf returns the thread of JNIEnv* env, adding one that no
// thread-start event announced.
func (b *monitorDumpBuilder) threadOf(env uint64) *thread.Snapshot {
	i, ok := b.threadAt[env]
	if !ok {
		i = len(b.dump.Threads)
		b.threadAt[env] = i
		b.dump.Threads = append(b.dump.Threads, thread.Snapshot{Name: fmt.Sprintf("JNIEnv 0x%x", env), ID: fmt.Sprintf("0x%x", env)})
	}
	return &b.dump.Threads[i]
}

// addStacks gives the threads the stacks and states of the monitor dump
// event of ev.
func (b *monitorDumpBuilder) addStacks(ev *MonitorEvents) {
	methods := map[uint64]thread.Frame{}
	for _, m := range ev.Methods {
		methods[uint64(m.ID)] = thread.Frame{Class: m.ClassName, Method: m.Name, Line: thread.LineUnknown}
	}
	for k, tr := range ev.Event.Traces {
		t := b.threadOf(uint64(tr.EnvID))
		for _, f := range tr.Frames {
			fr, ok := methods[uint64(f.MethodID)]
			if !ok {
				fr.Method = fmt.Sprintf("<unknown method 0x%x>", uint64(f.MethodID))
			}
			fr.Line = f.Line
			t.Frames = append(t.Frames, fr)
		}
		if k < len(ev.Event.ThreadsStatus) {
			st := ev.Event.ThreadsStatus[k]
			t.State = threadStates[st&^(ThreadSuspended|ThreadInterrupted)]
			var notes []string
			if st&ThreadSuspended != 0 {
				notes = append(notes, "suspended")
			}
			if st&ThreadInterrupted != 0 {
				notes = append(notes, "interrupted")
			}
			t.StateDetail = strings.Join(notes, ", ")
		}
	}
}

// monitor adds the lock of monitor dump record rec to the locks of its
// owner and waiters and returns the monitor with their names.
func (b *monitorDumpBuilder) monitor(rec *Monitor) thread.Monitor {
	lock := thread.Lock{Kind: thread.LockMonitor, ID: rec.Object, Class: b.objectClass[rec.Object]}
	if rec.Kind == MonitorRaw {
		lock = thread.Lock{Kind: thread.LockRawMonitor, ID: rec.RawID, Name: b.rawNames[rec.NamePtr]}
		if lock.Name == "" {
			lock.Name = fmt.Sprintf("<raw monitor named at 0x%x>", rec.NamePtr)
		}
	}
	// name adds the lock to the locks of the thread of JNIEnv* env and
	// returns the thread's name.
	name := func(env uint64, action thread.LockAction) string {
		t := b.threadOf(env)
		t.Locks = append(t.Locks, thread.LockUse{Lock: lock, Action: action, Frame: -1})
		return t.Name
	}
	m := thread.Monitor{Lock: lock, EntryCount: rec.EntryCount}
	if rec.Owner != 0 {
		m.Owner = name(rec.Owner, thread.Holds)
	}
	for _, env := range rec.Entering {
		if env != 0 {
			m.Entering = append(m.Entering, name(env, thread.Enters))
		}
	}
	for _, env := range rec.Notified {
		if env != 0 {
			m.Notified = append(m.Notified, name(env, thread.WaitsOn))
		}
	}
	return m
}
