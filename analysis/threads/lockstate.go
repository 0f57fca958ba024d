package threads

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// This file reads the java.util.concurrent lock state a heap dump holds
// in its java.lang.Thread objects into a thread.Dump, so the deadlock
// analysis reads it as it reads thread dumps. It reads the field values
// through the model (readLockFields), decodes the JVMTI state words
// (threadStatusState) and builds the lock graph (addParkedLocks).

// HeapLocks is the lock evidence of a heap dump: its threads as a
// thread.Dump, and what the dump can and cannot tell about locks.
type HeapLocks struct {
	// Dump holds one thread per java.lang.Thread object that has a name
	// or a stack, with its state when the dump records it, its stack, a
	// Parks line for the synchronizer in its parkBlocker field and a Holds
	// line for each such synchronizer whose exclusiveOwnerThread it is.
	// SynchronizerOwners is set: the owner of every synchronizer a thread
	// parks on is read from the heap.
	Dump *thread.Dump
	// Objects gives, for each thread of Dump, its java.lang.Thread
	// object.
	Objects []model.ObjectIndex
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

// ReadHeapLocks reads the objects of the heap dump h was loaded from that
// hold lock state again, through the heap (only those objects' records
// where the file allows, see model.ReadValues), and collects the lock state
// its java.lang.Thread objects and ownable synchronizers hold: each
// thread's name, tid, daemon flag and state, the synchronizer it is
// parked on (parkBlocker) and that synchronizer's exclusiveOwnerThread.
// Monitors leave no owner in a heap dump; only MonitorRoots counts them.
func ReadHeapLocks(h *model.Heap) (*HeapLocks, error) {
	out := &HeapLocks{Dump: &thread.Dump{Format: "heap dump", SynchronizerOwners: true, Truncated: h.Truncated}, Agent: h.Source.Producer == "hprof-agent"}
	for _, r := range h.Roots {
		if r.Kind == model.RootMonitorUsed {
			out.MonitorRoots++
		}
	}
	s := heapLockState{h: h, kinds: lockClasses(h)}
	var err error
	if s.fields, err = readLockFields(h, s.objects()); err != nil {
		return nil, err
	}
	names, err := s.threadNames()
	if err != nil {
		return nil, err
	}
	s.addThreads(out, names)
	s.addParkedLocks(out)
	return out, nil
}

// lockClass says which lock state ReadHeapLocks reads from the instances
// of a class.
type lockClass uint8

// The lock classes.
const (
	// noLockState: the class holds none.
	noLockState lockClass = iota
	// threadClass: java.lang.Thread and its subclasses.
	threadClass
	// holderClass: java.lang.Thread$FieldHolder (JDK 19+), which holds a
	// thread's state and daemon flag.
	holderClass
	// synchronizerClass: the ownable synchronizers,
	// java.util.concurrent.locks.AbstractOwnableSynchronizer and its
	// subclasses.
	synchronizerClass
)

// lockClasses tells, per class of h, which lock state its instances hold:
// that of the nearest of its superclasses (itself included) that holds
// some.
func lockClasses(h *model.Heap) []lockClass {
	kinds := make([]lockClass, len(h.Classes))
	for c := range h.Classes {
		for s := range h.Supers(model.ClassIndex(c)) {
			switch h.Classes[s].Name {
			case "java.lang.Thread":
				kinds[c] = threadClass
			case "java.lang.Thread$FieldHolder":
				kinds[c] = holderClass
			case "java.util.concurrent.locks.AbstractOwnableSynchronizer":
				kinds[c] = synchronizerClass
			}
			if kinds[c] != noLockState {
				break
			}
		}
	}
	return kinds
}

// lockFields is what ReadHeapLocks reads of one Thread,
// Thread$FieldHolder or ownable synchronizer object; references are
// object ids.
type lockFields struct {
	name, blocker, holder, owner uint64
	status                       uint32
	hasStatus                    bool
	tid                          int64
	daemon                       bool
}

// readLockFields reads the lock fields of the objects objs through the
// model's value API; objects whose record cannot be decoded are left
// out.
func readLockFields(h *model.Heap, objs []model.ObjectIndex) (map[model.ObjectIndex]lockFields, error) {
	vals, err := model.ReadValues(h, objs, model.ValueOptions{})
	if err != nil {
		return nil, err
	}
	out := make(map[model.ObjectIndex]lockFields, len(vals))
	for o, v := range vals {
		out[o] = decodeLockFields(v.Fields)
	}
	return out, nil
}

// decodeLockFields picks the lock fields out of an instance's field
// values, in record order: of two fields of one name and type up the
// class chain, the superclass's counts.
func decodeLockFields(fields []model.Value) lockFields {
	var f lockFields
	for _, v := range fields {
		switch {
		case v.Type == model.TypeObject && v.Name == "name":
			f.name = v.Bits
		case v.Type == model.TypeObject && v.Name == "parkBlocker":
			f.blocker = v.Bits
		case v.Type == model.TypeObject && v.Name == "holder":
			f.holder = v.Bits
		case v.Type == model.TypeObject && v.Name == "exclusiveOwnerThread":
			f.owner = v.Bits
		case v.Type == model.TypeInt && v.Name == "threadStatus":
			f.status, f.hasStatus = uint32(v.Bits), true
		case v.Type == model.TypeLong && v.Name == "tid":
			f.tid = int64(v.Bits)
		case v.Type == model.TypeBoolean && v.Name == "daemon":
			f.daemon = v.Bits != 0
		}
	}
	return f
}

// heapLockState is ReadHeapLocks at work: the lock class of each class
// and the lock fields read of each object of one.
type heapLockState struct {
	h      *model.Heap
	kinds  []lockClass
	fields map[model.ObjectIndex]lockFields
}

// kind is the lock class of object o's class.
func (s *heapLockState) kind(o model.ObjectIndex) lockClass {
	c := s.h.ClassOf(o)
	if c == model.NoClass || int(c) >= len(s.kinds) {
		return noLockState
	}
	return s.kinds[c]
}

// kindOf is the lock class of the object with id id, and the object.
func (s *heapLockState) kindOf(id uint64) (lockClass, model.ObjectIndex) {
	o, ok := s.h.Lookup(id)
	if !ok {
		return noLockState, model.NoObject
	}
	return s.kind(o), o
}

// objects lists the objects of the heap that hold lock state.
func (s *heapLockState) objects() []model.ObjectIndex {
	var out []model.ObjectIndex
	for i := range s.h.NumObjects() {
		if s.kind(model.ObjectIndex(i)) != noLockState {
			out = append(out, model.ObjectIndex(i))
		}
	}
	return out
}

// threads lists the Thread objects read, by object id.
func (s *heapLockState) threads() []model.ObjectIndex {
	var out []model.ObjectIndex
	for o := range s.fields {
		if s.kind(o) == threadClass {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b model.ObjectIndex) int { return cmp.Compare(s.h.ObjectID(a), s.h.ObjectID(b)) })
	return out
}

// threadNames reads the names of the Thread objects read.
func (s *heapLockState) threadNames() (map[model.ObjectIndex]string, error) {
	var strs []model.ObjectIndex
	for o, f := range s.fields {
		if s.kind(o) != threadClass {
			continue
		}
		if str, ok := s.h.Lookup(f.name); ok {
			strs = append(strs, str)
		}
	}
	return model.ReadNames(s.h, strs)
}

// addThreads adds to out a thread for each Thread object with a name or
// a stack, by object id, with its state (from its own threadStatus or
// its holder's) and stack.
func (s *heapLockState) addThreads(out *HeapLocks, names map[model.ObjectIndex]string) {
	h := s.h
	traces := map[model.ObjectIndex]int32{}
	for _, t := range h.Threads {
		traces[t.Object] = t.Trace
	}
	for _, o := range s.threads() {
		f := s.fields[o]
		if k, holder := s.kindOf(f.holder); k == holderClass {
			if hf, ok := s.fields[holder]; ok {
				f.status, f.hasStatus, f.daemon = hf.status, hf.hasStatus, hf.daemon
			}
		}
		t := thread.Snapshot{ID: strconv.FormatInt(f.tid, 10), Daemon: f.daemon}
		if str, ok := h.Lookup(f.name); ok {
			t.Name = names[str]
		}
		if tr, ok := traces[o]; ok && tr >= 0 && int(tr) < len(h.Traces) {
			t.Frames = append([]thread.Frame(nil), h.Traces[tr].Frames...)
		}
		if t.Name == "" && len(t.Frames) == 0 {
			continue
		}
		if f.hasStatus {
			out.StatesKnown = true
			t.State, t.StateDetail = threadStatusState(f.status)
		}
		out.Dump.Threads = append(out.Dump.Threads, t)
		out.Objects = append(out.Objects, o)
	}
}

// addParkedLocks builds the lock graph of out's threads: a Parks line for
// each thread parked on an ownable synchronizer (parkBlocker), and a
// Holds line for the thread that is its exclusiveOwnerThread.
func (s *heapLockState) addParkedLocks(out *HeapLocks) {
	threadOf := map[uint64]int{}
	for i, o := range out.Objects {
		threadOf[s.h.ObjectID(o)] = i
	}
	for i, o := range out.Objects {
		b := s.fields[o].blocker
		k, bo := s.kindOf(b)
		if k != synchronizerClass {
			continue
		}
		l := thread.Lock{Kind: thread.LockSynchronizer, Class: s.h.Classes[s.h.ClassOf(bo)].Name, ID: b}
		out.Parked++
		th := &out.Dump.Threads[i]
		th.Locks = append(th.Locks, thread.LockUse{Lock: l, Action: thread.Parks, Frame: -1})
		sf, read := s.fields[bo]
		if !read || sf.owner == 0 {
			continue
		}
		if k, ok := threadOf[sf.owner]; ok {
			ot := &out.Dump.Threads[k]
			if !ot.Owns(l) {
				ot.Locks = append(ot.Locks, thread.LockUse{Lock: l, Action: thread.Holds, Frame: -1})
			}
		}
	}
}
