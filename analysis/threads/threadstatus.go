package threads

import "github.com/hprofctl/hprofctl/model/thread"

// The bits of a JVMTI thread state word (JVMTI GetThreadState,
// JVMTI_THREAD_STATE_*) that threadStatusState reads. A thread's word,
// which java.lang.Thread.threadStatus (Thread.holder.threadStatus on JDK
// 19+) holds, combines them as the specification does: a thread in
// Object.wait() is ALIVE|WAITING|WAITING_INDEFINITELY|IN_OBJECT_WAIT, a
// parked one ALIVE|WAITING|WAITING_INDEFINITELY|PARKED, and so on.
// WAITING (0x80) and IN_OBJECT_WAIT (0x100) always come with bits below,
// so the states are told apart without them.
const (
	jvmtiAlive                 = 0x0001
	jvmtiTerminated            = 0x0002
	jvmtiRunnable              = 0x0004
	jvmtiWaitingIndefinitely   = 0x0010
	jvmtiWaitingWithTimeout    = 0x0020
	jvmtiSleeping              = 0x0040
	jvmtiParked                = 0x0200
	jvmtiBlockedOnMonitorEnter = 0x0400
)

// threadStatusState maps a JVMTI thread state word (the threadStatus
// field of a java.lang.Thread) to the java.lang.Thread.State name, with
// the detail HotSpot's thread dumps print after it (thread.DetailOnMonitor,
// DetailParking, DetailSleeping; empty otherwise). A waiting thread
// neither parked nor sleeping is waiting on a monitor (IN_OBJECT_WAIT:
// Object.wait, Thread.join).
func threadStatusState(s uint32) (state, detail string) {
	switch {
	case s&jvmtiRunnable != 0:
		return thread.StateRunnable, ""
	case s&jvmtiBlockedOnMonitorEnter != 0:
		return thread.StateBlocked, thread.DetailOnMonitor
	case s&(jvmtiWaitingIndefinitely|jvmtiWaitingWithTimeout) != 0:
		state = thread.StateWaiting
		if s&jvmtiWaitingWithTimeout != 0 {
			state = thread.StateTimedWaiting
		}
		switch {
		case s&jvmtiParked != 0:
			detail = thread.DetailParking
		case s&jvmtiSleeping != 0:
			detail = thread.DetailSleeping
		default:
			detail = thread.DetailOnMonitor
		}
		return state, detail
	case s&jvmtiTerminated != 0:
		return thread.StateTerminated, ""
	case s&jvmtiAlive == 0:
		return thread.StateNew, ""
	}
	return thread.StateRunnable, ""
}
