package session

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/hprofctl/hprofctl/parser/threaddump"
)

// AllDumps, as the dump a question about thread dumps asks for, selects
// every dump of the file.
const AllDumps = -2

// ThreadOptions choose what Threads tells of each thread.
type ThreadOptions struct {
	// Depth is how many frames of each stack to keep (0: all).
	Depth int
	// Retained adds what each thread retains and each frame's locals
	// (binary heap dumps read from a file).
	Retained bool
}

// Threads lists every thread the file knows, with its state where it
// records one and its stack, by what the file holds: a binary heap dump
// (HeapThreads), an hprof agent file, a JVMPI capture, or thread dumps
// (Options.Dump picks one; -1: the last).
func (s *Session) Threads(o ThreadOptions) ([]threads.ThreadRow, error) {
	kind := s.format.Kind
	if o.Retained && kind != input.KindHPROF {
		return nil, fmt.Errorf("--retained: %s is no binary heap dump", s.name)
	}
	switch {
	case kind == input.KindJVMPICapture:
		return s.captureThreads(o.Depth)
	case kind == input.KindHPROF:
		// The Thread objects of a heap dump name the threads and give
		// their states: read again where the dump says they are.
		return s.HeapThreads(o)
	case kind == input.KindHPROF || kind == input.KindHPROFASCII:
		p, h, err := s.loadProfile(false)
		if err != nil {
			return nil, err
		}
		if h != nil {
			return threads.ThreadsFromHeap(h, nil, o.Depth), nil
		}
		return threads.ThreadsFromProfile(p, o.Depth), nil
	}
	dumps, err := s.ThreadDumps(s.o.Dump)
	if err != nil {
		return nil, err
	}
	return threads.ThreadsFromDump(dumps[0].Dump, o.Depth), nil
}

// HeapThreads lists the threads of the heap: named and with their states
// from the lock state of a binary dump, and with what each
// retains when o asks.
func (s *Session) HeapThreads(o ThreadOptions) ([]threads.ThreadRow, error) {
	var r *graph.Retention
	if o.Retained {
		var err error
		if _, r, err = s.retained(); err != nil {
			return nil, err
		}
	}
	h, err := s.Heap()
	if err != nil {
		return nil, err
	}
	hl, err := s.locks()
	if err != nil {
		return nil, err
	}
	rows := threads.ThreadsFromHeap(h, hl, o.Depth)
	if o.Retained {
		var edges *threads.ThreadEdgeList
		if x := s.indexOf(); x != nil {
			edges = x.threadEdges(s.noteln)
		}
		if err := threads.AddThreadRetention(h, r, rows, edges); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// captureThreads lists the threads of a JVMPI capture: those of a monitor
// dump with their states and stacks, or those a heap or object dump's side
// channel announces.
func (s *Session) captureThreads(depth int) ([]threads.ThreadRow, error) {
	c, err := jvmpi.LoadCapture(s.format.Manifest)
	if err != nil {
		return nil, err
	}
	if c.Options.Kind == jvmpi.MonitorDump {
		d, _, err := jvmpi.ReadMonitorDump(s.format.Manifest)
		if err != nil {
			return nil, err
		}
		return threads.ThreadsFromDump(d, depth), nil
	}
	h, err := s.loadHeap(false)
	if err != nil {
		return nil, err
	}
	return threads.ThreadsFromHeap(h, nil, depth), nil
}

// ThreadDump is a thread dump and the name it is reported under.
type ThreadDump struct {
	Dump   *thread.Dump
	Source string
}

// ThreadDumps reads the dumps of a thread-dump file, or only dump number
// which (-1: the last; AllDumps: every one). A dump cut short is kept,
// with a warning; an error reading the file is returned with the dumps
// read before it.
func (s *Session) ThreadDumps(which int) ([]ThreadDump, error) {
	s.mu.Lock()
	f, err := s.read()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := threaddump.NewReader(f, threaddump.Options{Name: f.Name})
	var dumps []*thread.Dump
	for r.Next() {
		dumps = append(dumps, r.Dump())
	}
	err = r.Err()
	if errors.Is(err, threaddump.ErrTruncated) {
		s.noteln("warning: %v", err)
		err = nil
	}
	var out []ThreadDump
	for k, d := range dumps {
		if which != AllDumps && k != which && (which != -1 || k != len(dumps)-1) {
			continue
		}
		source := f.Name
		if len(dumps) > 1 {
			source = fmt.Sprintf("%s, dump %d of %d", f.Name, k+1, len(dumps))
			if d.Line > 0 {
				source += fmt.Sprintf(" (line %d)", d.Line)
			}
		}
		out = append(out, ThreadDump{d, source})
	}
	if which != AllDumps && len(out) == 0 && err == nil {
		err = fmt.Errorf("%s: --dump %d: the file holds %d thread dumps", f.Name, which, len(dumps))
	}
	return out, err
}

// Deadlocks finds the deadlocks of the file, by what it holds: a JVMPI
// monitor dump (a capture, or a bare buffer Options.Bare describes), the
// lock state of an hprof agent file or heap dump (HeapDeadlocks, its
// notes written as notes; standard input is read as thread dumps), or the
// thread dumps of a text or JSON file, every one of them or only number
// which (-1: the last; AllDumps: every one).
func (s *Session) Deadlocks(which int) ([]threads.DeadlockReport, error) {
	kind := s.format.Kind
	switch {
	case kind == input.KindJVMPIBare:
		r, err := s.bareMonitorDeadlocks()
		if err != nil {
			return nil, err
		}
		return []threads.DeadlockReport{r}, nil
	case kind == input.KindJVMPICapture:
		d, _, err := jvmpi.ReadMonitorDump(s.format.Manifest)
		if err != nil {
			return nil, err
		}
		r := threads.FindDeadlocks(d)
		r.Source = s.path
		return []threads.DeadlockReport{r}, nil
	case kind == input.KindHPROF || kind == input.KindHPROFASCII:
		r, notes, err := s.HeapDeadlocks()
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, fmt.Errorf("%s: the hprof agent file has no MONITOR DUMP", s.name)
		}
		for _, n := range notes {
			s.noteln("note: %s: %s", s.name, n)
		}
		return []threads.DeadlockReport{*r}, nil
	}
	dumps, err := s.ThreadDumps(which)
	var reports []threads.DeadlockReport
	for _, d := range dumps {
		r := threads.FindDeadlocks(d.Dump)
		r.Source = d.Source
		reports = append(reports, r)
	}
	return reports, err
}

// bareMonitorDeadlocks finds the deadlocks of a bare JVMPI monitor dump
// buffer.
func (s *Session) bareMonitorDeadlocks() (threads.DeadlockReport, error) {
	s.mu.Lock()
	f, err := s.read()
	s.mu.Unlock()
	if err != nil {
		return threads.DeadlockReport{}, err
	}
	defer f.Close()
	d, _, err := jvmpi.ReadMonitorBuffer(f, f.Name, *s.o.Bare)
	if err != nil {
		return threads.DeadlockReport{}, err
	}
	r := threads.FindDeadlocks(d)
	r.Source = f.Name
	return r, nil
}

// HeapDeadlocks finds the deadlocks of an hprof agent file or heap dump:
// those of its MONITOR DUMP, else those the heap's lock state proves
// with the notes on what a heap dump cannot tell; nil when
// it has neither.
func (s *Session) HeapDeadlocks() (*threads.DeadlockReport, []string, error) {
	p, err := s.agentProfile()
	if err != nil {
		return nil, nil, err
	}
	if d := threads.MonitorDumpThreads(p); d != nil {
		r := threads.FindDeadlocks(d)
		r.Source = s.name + " (MONITOR DUMP)"
		return &r, nil, nil
	}
	hl, err := s.locks()
	if hl == nil || err != nil {
		return nil, nil, err
	}
	r, notes := threads.HeapDeadlocks(hl)
	r.Source = s.name + " (heap dump)"
	return &r, notes, nil
}

// agentProfile is the profile of an hprof agent file: a binary file's
// comes with its heap (with the objects, as its lock state needs them),
// an ASCII file's is read from it.
func (s *Session) agentProfile() (*model.Profile, error) {
	if !s.binary() {
		return s.Profile()
	}
	h, err := s.Heap()
	if err != nil {
		return nil, err
	}
	return h.Profile(), nil
}

// TiedLocks are the locks of deadlocks tied to the objects of a heap
// dump: each lock's class and shortest retaining path.
type TiedLocks struct {
	// Heap names the heap dump.
	Heap  string
	Locks []threads.HeapLock
}

// TieLocks ties the locks the deadlocks of reports wait for to the objects
// at their addresses in this heap dump, taken from the same process at
// the same moment (jcmd GC.heap_dump -all runs no GC, so objects keep
// their addresses); nil when the deadlocks wait for no lock.
func (s *Session) TieLocks(reports []threads.DeadlockReport) (*TiedLocks, error) {
	locks := threads.DeadlockLocks(reports)
	if len(locks) == 0 {
		return nil, nil
	}
	h, err := s.Heap()
	if err != nil {
		return nil, err
	}
	p := graph.ShortestPaths(h, graph.RetainerOptions{Objects: threads.LockObjects(h, locks), Paths: 1})
	labels, names, err := pathLabels(h, p)
	if err != nil {
		return nil, err
	}
	return &TiedLocks{Heap: h.Source.File, Locks: threads.TieLocks(h, locks, heap.DescribePaths(h, p, false, labels, names))}, nil
}
