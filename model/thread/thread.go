// Package thread is the thread-and-lock model that thread listings and
// deadlock analysis read. It does not depend on where the facts came
// from: a HotSpot thread dump (jstack, jcmd Thread.print, SIGQUIT), a JDK
// 21+ Thread.dump_to_file dump, the hprof agent's MONITOR DUMP, a JVMPI
// monitor dump or the lock state of a heap dump's Thread objects all
// reduce to threads, their stacks, and what each thread holds, is blocked
// entering, is parked on or waits on. parser/threaddump, parser/jvmpi and
// parser/hprofascii produce these types; the heap model keeps its stack
// traces as Frames; analysis reads a heap dump's lock state into a Dump.
//
// The package is a leaf: it imports none of the project's packages, so
// the parsers and the model can all use it.
package thread

// Frame is one Java stack frame, of a thread dump or of a heap dump's
// stack trace.
type Frame struct {
	Class     string
	Method    string
	Signature string
	File      string
	// Line > 0 is a source line; LineUnknown, LineCompiled, LineNative.
	Line int32
}

// Special Frame.Line values, as HPROF numbers them.
const (
	LineUnknown  = -1
	LineCompiled = -2
	LineNative   = -3
)

// The java.lang.Thread.State names a Snapshot's State holds.
const (
	StateNew          = "NEW"
	StateRunnable     = "RUNNABLE"
	StateBlocked      = "BLOCKED"
	StateWaiting      = "WAITING"
	StateTimedWaiting = "TIMED_WAITING"
	StateTerminated   = "TERMINATED"
)

// The notes HotSpot's thread dumps print after a state, as a Snapshot's
// StateDetail holds them.
const (
	// DetailOnMonitor: blocked entering a monitor, or in Object.wait.
	DetailOnMonitor = "on object monitor"
	// DetailParking: parked (LockSupport.park).
	DetailParking = "parking"
	// DetailSleeping: in Thread.sleep.
	DetailSleeping = "sleeping"
)

// LockKind says what sort of lock a Lock is.
type LockKind string

// The lock kinds.
const (
	// LockMonitor is the monitor of a Java object (synchronized,
	// Object.wait).
	LockMonitor LockKind = "monitor"
	// LockRawMonitor is a VM-level raw monitor (JVMTI, JVMPI): a named
	// lock with no Java object behind it.
	LockRawMonitor LockKind = "raw_monitor"
	// LockSynchronizer is a java.util.concurrent object a thread parks on
	// with LockSupport.park. Only ownable synchronizers held exclusively
	// (ReentrantLock, the write lock of a ReentrantReadWriteLock, a
	// ThreadPoolExecutor worker) have an owner; conditions, latches and
	// queues do not.
	LockSynchronizer LockKind = "synchronizer"
)

// Lock names one lock as a dump identifies it. Two mentions of the same
// lock in one dump are equal Lock values, so a Lock can key a map.
type Lock struct {
	Kind LockKind
	// Class is the Java class of the lock object (for a monitor taken by a
	// static synchronized method HotSpot writes "java.lang.Class for
	// NAME"); empty for raw monitors and when the dump does not say.
	Class string
	// ID is the object's address, the same value as its object ID in a
	// heap dump of the same moment (HotSpot text dumps, MONITOR DUMP,
	// JVMPI), or a raw monitor's id; 0 when the dump gives none.
	ID uint64
	// Name is a raw monitor's name, or the identity string "CLASS@HASH"
	// that JDK 21+ Thread.dump_to_file dumps name objects by.
	Name string
}

// LockAction is how a thread relates to a lock.
type LockAction string

// The lock actions.
const (
	// Holds: the thread owns the lock (entered the monitor, or is the
	// exclusive owner of the synchronizer).
	Holds LockAction = "holds"
	// Enters: the thread is blocked entering the monitor, first time or
	// re-entering after Object.wait returned. A wait-for edge.
	Enters LockAction = "enters"
	// Parks: the thread is parked on the synchronizer. A wait-for edge
	// when the synchronizer has an owner.
	Parks LockAction = "parks"
	// WaitsOn: the thread is in Object.wait on the monitor, which it
	// released; it waits to be notified. Not a wait-for edge.
	WaitsOn LockAction = "waits_on"
)

// LockUse is one line of a thread's lock information: which lock, what
// the thread does with it, and in which frame.
type LockUse struct {
	Lock   Lock
	Action LockAction
	// Frame is the index in the thread's Frames of the frame that took
	// or waits for the lock; -1 when the dump does not say (ownable
	// synchronizers, MONITOR DUMP entries).
	Frame int
}

// Snapshot is one thread as a thread or monitor dump shows it: its stack
// and its locks at the moment of the dump.
type Snapshot struct {
	// Name is the thread's name; it may hold spaces and quotes.
	Name string
	// ID is the dump's identifier of the thread, as text: the Java thread
	// id (the "#12" of HotSpot dumps, "tid" of JSON dumps), or a serial
	// number or address for agent dumps; empty when the dump gives none
	// (HotSpot's VM-internal threads).
	ID      string
	Daemon  bool
	Virtual bool
	// State is the java.lang.Thread.State name (StateRunnable,
	// StateBlocked, ...); empty when the dump gives none.
	State string
	// StateDetail is HotSpot's note after the state: DetailOnMonitor,
	// DetailParking, DetailSleeping.
	StateDetail string
	// Frames is the stack, innermost frame first. Thread dumps give no
	// method signatures; the module a frame names is not kept.
	Frames []Frame
	// Locks lists the thread's locks in the order the dump gives them.
	Locks []LockUse
}

// Waits returns the locks the thread is blocked entering or parked on:
// the candidates for its wait-for edges.
func (t *Snapshot) Waits() []LockUse {
	var out []LockUse
	for _, l := range t.Locks {
		if l.Action == Enters || l.Action == Parks {
			out = append(out, l)
		}
	}
	return out
}

// Owns tells whether the thread owns lock l at the moment of the dump. A
// monitor the thread waits on, or is blocked re-entering after
// Object.wait, was released even though a lower frame still shows it as
// locked.
func (t *Snapshot) Owns(l Lock) bool {
	for _, o := range t.OwnedLocks() {
		if o == l {
			return true
		}
	}
	return false
}

// OwnedLocks lists, once each and in dump order, the locks the thread
// owns at the moment of the dump (see Owns).
func (t *Snapshot) OwnedLocks() []Lock {
	released := map[Lock]bool{}
	for _, x := range t.Locks {
		if x.Lock.Kind != LockSynchronizer && (x.Action == WaitsOn || x.Action == Enters) {
			released[x.Lock] = true
		}
	}
	var out []Lock
	seen := map[Lock]bool{}
	for _, x := range t.Locks {
		if x.Action == Holds && !released[x.Lock] && !seen[x.Lock] {
			seen[x.Lock] = true
			out = append(out, x.Lock)
		}
	}
	return out
}

// InObjectWait tells whether the thread's innermost frame is
// java.lang.Object.wait (or the wait0 native method of JDK 21+): it has
// released the monitor it waits on, or is trying to take it back.
func (t *Snapshot) InObjectWait() bool {
	if len(t.Frames) == 0 {
		return false
	}
	f := t.Frames[0]
	return f.Class == "java.lang.Object" && (f.Method == "wait" || f.Method == "wait0")
}

// Dump is one dump of all threads of one JVM at one moment.
type Dump struct {
	// Format names the kind of dump: "HotSpot thread dump", "JSON thread
	// dump", "plain-text thread dump", ...
	Format string
	// Time is when the dump was taken, as the dump prints it; empty when
	// it does not.
	Time string
	// VM describes the JVM: "OpenJDK 64-Bit Server VM (17.0.15+6 mixed
	// mode, sharing)", or a runtime version "25.0.3+9-LTS".
	VM string
	// Line is the line of the source where the dump starts (1-based); 0
	// when the source is not line-oriented.
	Line int64
	// Threads lists the threads in dump order.
	Threads []Snapshot
	// SynchronizerOwners tells whether the dump records which thread owns
	// each ownable synchronizer (jstack -l, jcmd Thread.print -l). Without
	// it a thread parked on a ReentrantLock has no known owner, and a
	// deadlock through one can be neither shown nor ruled out.
	SynchronizerOwners bool
	// Truncated is set when the source ended, or another dump began,
	// inside this dump: threads after the cut are missing and the last
	// one may lack some of its frames and locks.
	Truncated bool
}

// Monitor is one monitor of a monitor dump that names threads rather than
// listing each thread's locks (a JVMPI monitor dump): the lock, its
// owner's name (empty when unowned), the owner's entry count and the
// names of the threads waiting to enter it and waiting to be notified, in
// dump order.
type Monitor struct {
	Lock       Lock
	Owner      string
	EntryCount uint32
	Entering   []string
	Notified   []string
}
