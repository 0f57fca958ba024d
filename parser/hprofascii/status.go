package hprofascii

// Thread status codes: the state word the hprof agent prints last after
// "status:" on a MONITOR DUMP THREAD line (docs/hprof-ascii.md#monitor-dump).
const (
	StatusRunnable    = "R"  // runnable
	StatusMonitorWait = "MW" // blocked entering a monitor
	StatusCondvarWait = "CW" // waiting on a condition (Object.wait)
	StatusSleeping    = "SL" // sleeping
	StatusTerminated  = "ZO" // terminated (zombie)
	StatusNotStarted  = "NS" // not started
	StatusUnknown     = "UN" // unknown
)

// The flags that may precede the state word, each ending in "|".
const (
	flagSuspended   = "S|"
	flagInterrupted = "intr|"
	flagInNative    = "native|"
)

// threadStates are the java.lang.Thread.State names of the status codes
// that have one.
var threadStates = map[string]string{
	StatusRunnable:    "RUNNABLE",
	StatusMonitorWait: "BLOCKED",
	StatusCondvarWait: "WAITING",
	StatusSleeping:    "TIMED_WAITING",
	StatusTerminated:  "TERMINATED",
	StatusNotStarted:  "NEW",
}

// ThreadState returns the java.lang.Thread.State name ("BLOCKED") of a
// MONITOR DUMP status code (MonitorThread.State), or "" for StatusUnknown,
// an empty status and any code the agent does not write.
func ThreadState(code []byte) string { return threadStates[string(code)] }
