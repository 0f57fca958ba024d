package session

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model/thread"
)

// JVM is what the objects of a binary heap dump read from a file tell of
// the JVM that wrote it (heap.ReadJVMInfo), with the thread that threw an
// OutOfMemoryError; nil for any other file, or when the dump tells
// nothing.
func (s *Session) JVM() (*heap.JVMInfo, error) {
	if !s.binary() || s.stdin() {
		return nil, nil
	}
	h, err := s.Heap()
	if err != nil || h.Source.Dumps == 0 || !h.HasObjects {
		return nil, err
	}
	info, err := heap.ReadJVMInfo(h)
	if err != nil {
		return nil, err
	}
	hl, err := s.locks()
	if err != nil {
		return nil, err
	}
	if hl != nil {
		info.OOMThread, info.OOMFrame = oomThread(hl.Dump.Threads)
	}
	if info.IsEmpty() {
		return nil, nil
	}
	return &info, nil
}

// oomThread finds the thread whose innermost frame builds an
// OutOfMemoryError (OutOfMemoryError.<init>, as HotSpot dumps the thread
// on -XX:+HeapDumpOnOutOfMemoryError), and the frame below the
// constructors: where the error was thrown.
func oomThread(ts []thread.Snapshot) (name, frame string) {
	building := func(f thread.Frame) bool { return f.Class == "java.lang.OutOfMemoryError" && f.Method == "<init>" }
	for _, t := range ts {
		if len(t.Frames) == 0 || !building(t.Frames[0]) {
			continue
		}
		k := 1
		for k < len(t.Frames) && building(t.Frames[k]) {
			k++
		}
		if k < len(t.Frames) {
			frame = heap.FrameString(t.Frames[k])
		}
		return t.Name, frame
	}
	return "", ""
}
