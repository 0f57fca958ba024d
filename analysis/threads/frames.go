package threads

import (
	"github.com/hprofctl/hprofctl/model/thread"
)

// StackFrame is a frame as reports show it.
type StackFrame struct {
	// Method is "package.Class.method".
	Method string `json:"method"`
	File   string `json:"file"`
	// Line is the source line, or thread.LineUnknown, LineCompiled,
	// LineNative.
	Line int32 `json:"line"`
	// Locals are the objects the frame holds (threads --retained), nil
	// when not asked.
	Locals []FrameLocal `json:"locals,omitzero"`
}

// ReportFrames converts the innermost depth frames (all when depth is 0).
func ReportFrames(frames []thread.Frame, depth int) []StackFrame {
	if depth > 0 && len(frames) > depth {
		frames = frames[:depth]
	}
	out := make([]StackFrame, len(frames))
	for i, f := range frames {
		out[i] = StackFrame{Method: MethodName(f), File: f.File, Line: f.Line}
	}
	return out
}

// MethodName is a frame's method as "package.Class.method".
func MethodName(f thread.Frame) string {
	if f.Class == "" {
		return f.Method
	}
	return f.Class + "." + f.Method
}
