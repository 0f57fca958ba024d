package session

import "github.com/hprofctl/hprofctl/analysis/heap"

// JVM is what the objects of a binary heap dump read from a file tell of
// the JVM that wrote it (heap.ReadJVMInfo): the thread that threw an
// OutOfMemoryError, the version, command line and system properties; nil
// for any other file, or when the dump tells nothing.
func (s *Session) JVM() (*heap.JVMInfo, error) {
	if !s.binary() || s.stdin() {
		return nil, nil
	}
	h, err := s.Heap()
	if err != nil || h.Source.Dumps == 0 || !h.HasObjects {
		return nil, err
	}
	info, err := heap.ReadJVMInfo(h)
	if err != nil || info.IsEmpty() {
		return nil, err
	}
	return &info, nil
}
