package model

// This file holds the profiling data the hprof agent writes besides heap
// dumps: allocation sites, CPU samples and times, threads, monitor
// contention and monitor dumps. The builder fills a Profile from the
// binary records (ALLOC_SITES, CPU_SAMPLES, START_THREAD, ...), LoadASCII
// from the sections of a java.hprof.txt file, so the analyses read both
// the same way.

// Profile is what an hprof agent file tells besides its heap dump.
type Profile struct {
	// Source describes the file; Format is "hprof" or "hprof-ascii".
	Source Source
	// Threads lists the threads the agent announced, by serial.
	Threads []ProfileThread
	// Traces holds every stack trace of the file.
	Traces []Trace
	// Sites is the last allocation-site table, nil when the file has none.
	Sites *SiteTable
	// CPU is the last CPU SAMPLES or CPU TIME table, nil when none.
	CPU *CPUTable
	// MonitorTime is the last MONITOR TIME table, nil when none.
	MonitorTime *MonitorTimeTable
	// MonitorDump is the MONITOR DUMP chosen (the last, unless
	// LoadOptions.Dump picks another), nil when none; MonitorDumps counts
	// the file's MONITOR DUMPs and MonitorDumpIndex is the chosen one's
	// number (from 0).
	MonitorDump      *MonitorDump
	MonitorDumps     int
	MonitorDumpIndex int
	// Control is the agent's CONTROL_SETTINGS record, nil when absent.
	Control *ControlSettings
	// Summary is the last HEAP_SUMMARY record, nil when absent.
	Summary *HeapSummary
	// UnloadedClasses names the classes UNLOAD_CLASS records retired.
	UnloadedClasses []string
	// Anomalies lists what the reader skipped or found odd.
	Anomalies []Anomaly
	// Truncated is set when the file ended inside a record or section.
	Truncated bool

	traceBySerial  map[uint32]int
	threadBySerial map[uint32]int
	// deobfuscated is set once Deobfuscate has mapped the names.
	deobfuscated bool
}

// ProfileThread is a thread as the agent announced it (START_THREAD,
// THREAD START).
type ProfileThread struct {
	Serial   uint32
	ObjectID uint64
	Name     string
	Group    string
	// Trace is the serial of the trace recorded when the thread started
	// (binary files), 0 when none.
	Trace uint32
	// Ended is set when the agent saw the thread end (END_THREAD,
	// THREAD END).
	Ended bool
}

// SiteTable is the agent's allocation-site table with its totals.
type SiteTable struct {
	// OrderedBy is how the agent ordered the sites: "live bytes" or
	// "allocated bytes"; empty when the file does not say.
	OrderedBy string
	// Printed is set when each site carries the agent's printed Self and
	// Accum shares (ASCII SITES). An ASCII section prints no totals, so
	// the totals below then sum the listed sites; otherwise they are the
	// ALLOC_SITES record's totals of all objects.
	Printed        bool
	LiveBytes      int64
	LiveInstances  int64
	AllocBytes     int64
	AllocInstances int64
	Sites          []AllocSite
}

// AllocSite is one allocation site: objects of one class allocated at one
// stack trace, those still alive and all ever allocated.
type AllocSite struct {
	Class          string
	Trace          uint32
	LiveBytes      int64
	LiveInstances  int64
	AllocBytes     int64
	AllocInstances int64
	// Self and Accum are the agent's printed shares of all live bytes
	// and their running sum, in percent (when SiteTable.Printed).
	Self, Accum float64
}

// CPUTable is a CPU SAMPLES table (sample counts per trace), or a CPU
// TIME table (calls per trace, with shares of the total time).
type CPUTable struct {
	// Times is set for CPU TIME: Count is calls and Total milliseconds.
	Times bool
	Total int64
	Rows  []CPURow
}

// CPURow is one trace of a CPU table.
type CPURow struct {
	Trace uint32
	// Count is the samples in the trace (calls for CPU TIME).
	Count int64
	// Self is the trace's share of the total, in percent.
	Self float64
}

// MonitorTimeTable is the agent's MONITOR TIME table: contended monitors
// by the time threads spent waiting to enter them.
type MonitorTimeTable struct {
	// TotalMS and TotalMSMax bound the total contended time: the JVMTI
	// agent prints its millisecond total divided by 10^6 (so a printed 1
	// means 1,000,000 to 1,999,999 ms); the JVMPI agent prints it whole
	// and both are equal.
	TotalMS, TotalMSMax int64
	Rows                []MonitorContention
}

// MonitorContention is one row of MONITOR TIME.
type MonitorContention struct {
	Monitor MonitorName
	Trace   uint32
	// Count is the number of contentions.
	Count int64
	// Self is the monitor's share of the total time, in percent.
	Self float64
}

// MonitorName names a monitor: a Java object's monitor by the object's
// class (and id when the agent gave one), or a raw monitor by its name.
type MonitorName struct {
	Raw   bool
	Name  string
	Class string
	ID    uint64
}

// MonitorDump is the agent's MONITOR DUMP: every thread's state and
// stack, and every monitor in use with its owner and waiters.
type MonitorDump struct {
	Threads  []MonitorThread
	Monitors []MonitorState
}

// MonitorThread is one thread of a MONITOR DUMP.
type MonitorThread struct {
	Serial uint32
	Trace  uint32
	// State is the Java thread state the agent's code maps to
	// (RUNNABLE, BLOCKED, WAITING, TIMED_WAITING, TERMINATED, NEW), empty
	// when unknown.
	State       string
	Suspended   bool
	Interrupted bool
	InNative    bool
}

// MonitorState is one monitor of a MONITOR DUMP.
type MonitorState struct {
	Monitor MonitorName
	// Owner is the owning thread's serial when Owned (0: unknown thread).
	Owned      bool
	Owner      uint32
	EntryCount int32
	// WaitingToEnter and WaitingToBeNotified list thread serials.
	WaitingToEnter      []uint32
	WaitingToBeNotified []uint32
}

// ControlSettings is the agent's CONTROL_SETTINGS record.
type ControlSettings struct {
	// AllocTraces and CPUSampling are the record's flags 0x1 and 0x2.
	AllocTraces bool
	CPUSampling bool
	MaxDepth    int
}

// HeapSummary is the agent's HEAP_SUMMARY record.
type HeapSummary struct {
	LiveBytes      int64
	LiveInstances  int64
	AllocBytes     int64
	AllocInstances int64
}

// Trace returns the trace with the given serial, nil when the file has
// none.
func (p *Profile) Trace(serial uint32) *Trace {
	if p.traceBySerial == nil {
		p.traceBySerial = make(map[uint32]int, len(p.Traces))
		for i, t := range p.Traces {
			p.traceBySerial[t.Serial] = i
		}
	}
	if i, ok := p.traceBySerial[serial]; ok {
		return &p.Traces[i]
	}
	return nil
}

// Thread returns the thread with the given serial, nil when unknown.
func (p *Profile) Thread(serial uint32) *ProfileThread {
	if p.threadBySerial == nil {
		p.threadBySerial = make(map[uint32]int, len(p.Threads))
		for i, t := range p.Threads {
			p.threadBySerial[t.Serial] = i
		}
	}
	if i, ok := p.threadBySerial[serial]; ok {
		return &p.Threads[i]
	}
	return nil
}

// Empty reports whether the profile holds no profiling table at all
// (sites, CPU, monitors).
func (p *Profile) Empty() bool {
	return p.Sites == nil && p.CPU == nil && p.MonitorTime == nil && p.MonitorDump == nil
}

// ObjectAlloc counts the heap objects of one class allocated at one trace
// (with one length, for arrays): what heap=dump files of the agent record
// per object.
type ObjectAlloc struct {
	Class  ClassIndex
	Trace  uint32
	Length uint32
	Count  int64
}
