package threads

import (
	"fmt"
	"strconv"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// ThreadRow is one thread with its state and stack.
type ThreadRow struct {
	Name string `json:"name"`
	// Serial is the dump's thread serial number (the Java thread id for
	// thread dumps), 0 when it gives none.
	Serial uint32 `json:"serial"`
	// State is the java.lang.Thread.State name, empty when the dump does
	// not say.
	State  string       `json:"state"`
	Group  string       `json:"group,omitempty"`
	Trace  uint32       `json:"trace,omitempty"`
	Frames []StackFrame `json:"frames"`
	// RetainedBytes is what the thread retains (AddThreadRetention), nil
	// when not asked.
	RetainedBytes *int64 `json:"retained_bytes,omitzero"`
}

// ThreadStateCount is how many threads are in one state.
type ThreadStateCount struct {
	State   string
	Threads int
}

// ThreadStates counts threads by state, in the order the states first
// appear; threads whose state the dump does not give count as "unknown".
func ThreadStates(threads []ThreadRow) []ThreadStateCount {
	var out []ThreadStateCount
	at := map[string]int{}
	for _, t := range threads {
		s := t.State
		if s == "" {
			s = "unknown"
		}
		k, ok := at[s]
		if !ok {
			k = len(out)
			at[s] = k
			out = append(out, ThreadStateCount{State: s})
		}
		out[k].Threads++
	}
	return out
}

// ThreadsFromHeap lists the threads of a binary dump: those the heap
// dump roots (ROOT_THREAD_OBJ with their STACK TRACE) and those the agent
// announced (START_THREAD); a thread the agent saw end is TERMINATED.
// hl, when not nil, is what the dump's java.lang.Thread objects hold
// (ReadHeapLocks): it names the threads the records leave unnamed
// (every HotSpot dump) and gives their state from Thread.threadStatus.
func ThreadsFromHeap(h *model.Heap, hl *HeapLocks, depth int) []ThreadRow {
	p := h.Profile()
	objects := map[model.ObjectIndex]*thread.Snapshot{}
	if hl != nil {
		for i, o := range hl.Objects {
			objects[o] = &hl.Dump.Threads[i]
		}
	}
	out := make([]ThreadRow, 0, len(h.Threads))
	for _, t := range h.Threads {
		row := ThreadRow{Name: t.Name, Serial: t.Serial, Frames: []StackFrame{}}
		if ts, ok := objects[t.Object]; ok {
			if row.Name == "" {
				row.Name = ts.Name
			}
			row.State = ts.State
		}
		if p != nil {
			if pt := p.Thread(t.Serial); pt != nil {
				row.Group = pt.Group
				if pt.Ended {
					row.State = "TERMINATED"
				}
			}
		}
		if t.Trace >= 0 {
			tr := h.Traces[t.Trace]
			row.Trace = tr.Serial
			row.Frames = ReportFrames(tr.Frames, depth)
		}
		out = append(out, row)
	}
	return out
}

// ThreadsFromProfile lists the threads of an ASCII agent file: those
// THREAD START announced, with the state and stack of the last MONITOR
// DUMP when the file has one; a thread THREAD END retired is TERMINATED.
func ThreadsFromProfile(p *model.Profile, depth int) []ThreadRow {
	dumped := map[uint32]model.MonitorThread{}
	if p.MonitorDump != nil {
		for _, t := range p.MonitorDump.Threads {
			dumped[t.Serial] = t
		}
	}
	listed := map[uint32]bool{}
	var out []ThreadRow
	add := func(row ThreadRow) {
		if mt, ok := dumped[row.Serial]; ok {
			row.State, row.Trace = mt.State, mt.Trace
			if t := p.Trace(mt.Trace); t != nil {
				row.Frames = ReportFrames(t.Frames, depth)
			}
		}
		listed[row.Serial] = true
		out = append(out, row)
	}
	for _, t := range p.Threads {
		row := ThreadRow{Name: t.Name, Serial: t.Serial, Group: t.Group, Frames: []StackFrame{}}
		if t.Ended {
			row.State = "TERMINATED"
		}
		if t.Trace != 0 {
			if tr := p.Trace(t.Trace); tr != nil {
				row.Trace = t.Trace
				row.Frames = ReportFrames(tr.Frames, depth)
			}
		}
		add(row)
	}
	if p.MonitorDump != nil {
		for _, t := range p.MonitorDump.Threads {
			if !listed[t.Serial] {
				add(ThreadRow{Name: fmt.Sprintf("thread %d", t.Serial), Serial: t.Serial, Frames: []StackFrame{}})
			}
		}
	}
	return out
}

// ThreadsFromDump lists the threads of a thread dump.
func ThreadsFromDump(d *thread.Dump, depth int) []ThreadRow {
	out := make([]ThreadRow, 0, len(d.Threads))
	for _, t := range d.Threads {
		row := ThreadRow{Name: t.Name, State: t.State, Frames: ReportFrames(t.Frames, depth)}
		if n, err := strconv.ParseUint(t.ID, 10, 32); err == nil {
			row.Serial = uint32(n)
		}
		out = append(out, row)
	}
	return out
}
