package threads

import (
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// virtualThreadState maps the names of java.lang.VirtualThread's state
// constants (JDK 21 and later; their values change between releases, their
// names less) to the Thread.State that VirtualThread.threadState() gives
// for them. A mounted virtual thread (RUNNING) reports its carrier's
// state, which a heap dump does not tie to it: RUNNABLE; states in
// transition (PARKING, YIELDING ...) are RUNNABLE as there.
var virtualThreadState = map[string]string{
	"NEW": thread.StateNew, "STARTED": thread.StateRunnable, "RUNNABLE": thread.StateRunnable, "RUNNING": thread.StateRunnable,
	"UNPARKED": thread.StateRunnable, "UNBLOCKED": thread.StateRunnable, "YIELDED": thread.StateRunnable,
	"PARKING": thread.StateRunnable, "TIMED_PARKING": thread.StateRunnable, "YIELDING": thread.StateRunnable,
	"WAITING": thread.StateRunnable, "TIMED_WAITING": thread.StateRunnable,
	"PARKED": thread.StateWaiting, "PINNED": thread.StateWaiting, "WAIT": thread.StateWaiting,
	"TIMED_PARKED": thread.StateTimedWaiting, "TIMED_PINNED": thread.StateTimedWaiting, "TIMED_WAIT": thread.StateTimedWaiting,
	"BLOCKING": thread.StateBlocked, "BLOCKED": thread.StateBlocked,
	"TERMINATED": thread.StateTerminated,
}

// virtualStates reads the state constants of java.lang.VirtualThread from
// its static fields in h: the Thread.State of each value of its state
// field, and the SUSPENDED bit to mask off; nil when h has no such class.
func virtualStates(h *model.Heap) (states map[uint32]string, suspended uint32) {
	for i := range h.Classes {
		c := &h.Classes[i]
		if c.Name != "java.lang.VirtualThread" {
			continue
		}
		states = map[uint32]string{}
		for _, s := range c.Statics {
			if s.Type != model.TypeInt {
				continue
			}
			if s.Name == "SUSPENDED" {
				suspended = uint32(s.Value)
			} else if st, ok := virtualThreadState[s.Name]; ok {
				states[uint32(s.Value)] = st
			}
		}
		return states, suspended
	}
	return nil, 0
}

// isVirtualThread tells whether class c is java.lang.VirtualThread or a
// subclass of it.
func isVirtualThread(h *model.Heap, c model.ClassIndex) bool {
	if c == model.NoClass {
		return false
	}
	for s := range h.Supers(c) {
		if h.Classes[s].Name == "java.lang.VirtualThread" {
			return true
		}
	}
	return false
}
