package jvmpi

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// MonitorState is one record of a JVMPI monitor dump, decoded: the lock,
// its owner's name (empty when unowned), the owner's entry count and the
// names of the threads waiting to enter it and waiting to be notified, in
// buffer order. Null JNIEnv* entries (waiters that vanished) are left out.
type MonitorState struct {
	Lock       threaddump.Lock
	Owner      string
	EntryCount uint32
	Entering   []string
	Notified   []string
}

// threadStates maps the status codes of a monitor dump event, flags
// removed, to java.lang.Thread.State names (docs/jvmpi.md#constants).
var threadStates = map[int32]string{
	ThreadRunnable: "RUNNABLE", ThreadMonitorWait: "BLOCKED", ThreadCondvarWait: "WAITING",
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
func ReadMonitorDump(manifest string) (*threaddump.ThreadDump, []MonitorState, error) {
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
func ReadMonitorBuffer(in io.Reader, name string, opt Options) (*threaddump.ThreadDump, []MonitorState, error) {
	c := BareCapture(name, opt)
	if c.Options.Kind != MonitorDump {
		return nil, nil, fmt.Errorf("%s: a JVMPI %s holds no threads or monitors; read it with the heap commands", name, opt.Kind)
	}
	return readMonitors(c, in)
}

// readMonitors reads the monitor dump buffer in of capture c.
func readMonitors(c *Capture, in io.Reader) (*threaddump.ThreadDump, []MonitorState, error) {
	r, err := NewReader(in, c.Options)
	if err != nil {
		return nil, nil, err
	}
	ev := c.MonitorEvents
	d := &threaddump.ThreadDump{Format: "JVMPI monitor dump"}
	thread := map[uint64]int{}
	for _, t := range ev.Threads {
		thread[uint64(t.EnvID)] = len(d.Threads)
		d.Threads = append(d.Threads, threaddump.ThreadSnapshot{Name: t.Name, ID: fmt.Sprintf("0x%x", uint64(t.EnvID))})
	}
	// threadOf returns the thread of JNIEnv* env, adding one that no
	// thread-start event announced.
	threadOf := func(env uint64) *threaddump.ThreadSnapshot {
		i, ok := thread[env]
		if !ok {
			i = len(d.Threads)
			thread[env] = i
			d.Threads = append(d.Threads, threaddump.ThreadSnapshot{Name: fmt.Sprintf("JNIEnv 0x%x", env), ID: fmt.Sprintf("0x%x", env)})
		}
		return &d.Threads[i]
	}
	methods := map[uint64]threaddump.Frame{}
	for _, m := range ev.Methods {
		methods[uint64(m.ID)] = threaddump.Frame{Class: m.ClassName, Method: m.Name, Line: threaddump.LineUnknown}
	}
	for k, tr := range ev.Event.Traces {
		t := threadOf(uint64(tr.EnvID))
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
	rawNames := map[uint64]string{}
	for _, m := range ev.RawMonitors {
		rawNames[uint64(m.NamePtr)] = m.Name
	}
	classNames := map[uint64]string{}
	for _, cl := range ev.Classes {
		classNames[uint64(cl.ID)] = cl.Name
	}
	objectClass := map[uint64]string{}
	for _, o := range ev.Objects {
		objectClass[uint64(o.ObjectID)] = classNames[uint64(o.ClassID)]
	}
	// name adds the lock to the locks of the thread of JNIEnv* env and
	// returns the thread's name.
	name := func(env uint64, lock threaddump.Lock, action threaddump.LockAction) string {
		t := threadOf(env)
		t.Locks = append(t.Locks, threaddump.ThreadLock{Lock: lock, Action: action, Frame: -1})
		return t.Name
	}
	var monitors []MonitorState
	for r.Next() {
		rec := r.Record().Monitor
		lock := threaddump.Lock{Kind: threaddump.LockMonitor, ID: rec.Object, Class: objectClass[rec.Object]}
		if rec.Kind == MonitorRaw {
			lock = threaddump.Lock{Kind: threaddump.LockRawMonitor, ID: rec.RawID, Name: rawNames[rec.NamePtr]}
			if lock.Name == "" {
				lock.Name = fmt.Sprintf("<raw monitor named at 0x%x>", rec.NamePtr)
			}
		}
		m := MonitorState{Lock: lock, EntryCount: rec.EntryCount}
		if rec.Owner != 0 {
			m.Owner = name(rec.Owner, lock, threaddump.Holds)
		}
		for _, env := range rec.Entering {
			if env != 0 {
				m.Entering = append(m.Entering, name(env, lock, threaddump.Enters))
			}
		}
		for _, env := range rec.Notified {
			if env != 0 {
				m.Notified = append(m.Notified, name(env, lock, threaddump.WaitsOn))
			}
		}
		monitors = append(monitors, m)
	}
	if err := r.Err(); err != nil {
		if !errors.Is(err, ErrTruncated) {
			return nil, nil, err
		}
		d.Truncated = true
	}
	return d, monitors, nil
}
