package session

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
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
	if info.OOMThread, info.OOMFrame, err = oomThread(h); err != nil {
		return nil, err
	}
	if info.IsEmpty() {
		return nil, nil
	}
	return &info, nil
}

// oomThread finds the thread whose innermost frame builds an
// OutOfMemoryError (OutOfMemoryError.<init>, as HotSpot dumps the thread
// on -XX:+HeapDumpOnOutOfMemoryError): its name, from the name the dump
// gives it or its Thread object's name field, and the frame below the
// constructors, where the error was thrown. It reads only that thread's
// object.
func oomThread(h *model.Heap) (name, frame string, err error) {
	building := func(f thread.Frame) bool { return f.Class == "java.lang.OutOfMemoryError" && f.Method == "<init>" }
	for _, t := range h.Threads {
		if t.Trace < 0 || int(t.Trace) >= len(h.Traces) {
			continue
		}
		frames := h.Traces[t.Trace].Frames
		if len(frames) == 0 || !building(frames[0]) {
			continue
		}
		k := 1
		for k < len(frames) && building(frames[k]) {
			k++
		}
		if k < len(frames) {
			frame = heap.FrameString(frames[k])
		}
		name = t.Name
		if name == "" && t.Object != model.NoObject {
			name, err = threadName(h, t.Object)
		}
		return name, frame, err
	}
	return "", "", nil
}

// threadName reads the name field of the Thread object o; "" when it has
// none the dump can decode.
func threadName(h *model.Heap, o model.ObjectIndex) (string, error) {
	vals, err := model.ReadValues(h, []model.ObjectIndex{o}, model.ValueOptions{})
	if err != nil {
		return "", err
	}
	v, ok := vals[o]
	if !ok {
		return "", nil
	}
	f, ok := v.Field("name")
	if !ok || f.Ref == model.NoObject {
		return "", nil
	}
	names, err := model.ReadStrings(h, []model.ObjectIndex{f.Ref})
	return names[f.Ref], err
}
