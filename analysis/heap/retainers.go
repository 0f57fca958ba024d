package heap

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// rootPlace names where GC root rt lies: its thread, "" for none (by the
// name the dump gives it, else by decodedName, called only then, else by
// its serial), its frame as Java prints one, "" when unknown, and the
// frame's depth, nil when unknown.
func rootPlace(h *model.Heap, rt model.Root, decodedName func() string) (thread, frame string, depth *int32) {
	if rt.Frame >= 0 {
		d := rt.Frame
		depth = &d
	}
	if rt.Thread < 0 {
		return "", "", depth
	}
	th := h.Threads[rt.Thread]
	thread = th.Name
	if thread == "" {
		thread = decodedName()
	}
	if thread == "" {
		thread = fmt.Sprintf("thread serial %d", th.Serial)
	}
	if th.Trace >= 0 && rt.Frame >= 0 && int(rt.Frame) < len(h.Traces[th.Trace].Frames) {
		frame = FrameString(h.Traces[th.Trace].Frames[rt.Frame])
	}
	return thread, frame, depth
}

// PathStep is one object of a path and how the previous one references it.
type PathStep struct {
	ObjectID string `json:"object_id"`
	Class    string `json:"class"`
	// Heap is the Android heap the object lies in.
	Heap string `json:"heap,omitempty"`
	// Via is the field name, "[i]", "static NAME" (and so on, see
	// model.LabeledRef) the previous step references this one through;
	// "<class>" when it is the previous object's class, empty for the
	// first step, "?" when unknown.
	Via string `json:"via"`
	// Elided, when not 0, makes the step stand for that many objects left
	// out of the middle of a long path (graph.Shown): it has no object,
	// its Via is "…", its Class names their classes with their counts,
	// and ElidedClasses lists them, most first.
	Elided        int64         `json:"elided,omitempty"`
	ElidedClasses []ElidedClass `json:"elided_classes,omitempty"`
}

// ElidedClass is a class of the objects a path leaves out, with their
// number.
type ElidedClass struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
}

// elidedNames is how many classes an elided step's Class names.
const elidedNames = 3

// elidedStep is the step that stands for the objects left of a path.
// They are counted by class, an instance of a class that class objects
// are instances of by its own name (ClassName), so that an object costs
// a look-up of its class and not of its name.
func elidedStep(h *model.Heap, left []model.ObjectIndex) PathStep {
	ofClassObjects := map[model.ClassIndex]bool{}
	for _, c := range h.Classes {
		if c.Object != model.NoObject {
			ofClassObjects[h.ClassOf(c.Object)] = true
		}
	}
	type key struct {
		class model.ClassIndex
		name  string // a class object's own name, else ""
	}
	at := map[key]int{} // index in classes
	var classes []ElidedClass
	for _, x := range left {
		k := key{class: h.ClassOf(x)}
		if ofClassObjects[k.class] {
			k.name = ClassName(h, x)
		}
		i, ok := at[k]
		if !ok {
			i = len(classes)
			at[k] = i
			classes = append(classes, ElidedClass{Class: ClassName(h, x)})
		}
		classes[i].Count++
	}
	slices.SortStableFunc(classes, func(a, b ElidedClass) int { return cmp.Compare(b.Count, a.Count) })
	var names []string
	for _, c := range classes[:min(len(classes), elidedNames)] {
		names = append(names, fmt.Sprintf("%s ×%s", c.Class, humanize.Comma(c.Count)))
	}
	switch more := len(classes) - elidedNames; {
	case more == 1:
		names = append(names, "1 more class")
	case more > 1:
		names = append(names, fmt.Sprintf("%d more classes", more))
	}
	return PathStep{Via: "…", Class: strings.Join(names, ", "), Elided: int64(len(left)), ElidedClasses: classes}
}

// RetainerPath is one path from a GC root to a target.
type RetainerPath struct {
	RootKind   string `json:"root_kind"`
	RootThread string `json:"root_thread"`
	// RootFrame is the frame of a java-frame root, "" when the dump does
	// not record the thread's stack; RootFrameDepth its depth in the
	// stack (0: innermost), nil when the dump does not say.
	RootFrame      string `json:"root_frame"`
	RootFrameDepth *int32 `json:"root_frame_depth,omitempty"`
	// RootThreadAllocator says that RootThread is the thread that
	// allocated the root object, which the dump names instead of the one
	// whose frame holds it (model.Heap.RootThreadsAreAllocators).
	RootThreadAllocator bool `json:"root_thread_allocator,omitempty"`
	// Objects counts the targets whose path has this class chain.
	Objects int64      `json:"objects"`
	Chain   []PathStep `json:"chain"`
}

// Retainers is the result of the retainers command.
type Retainers struct {
	Paths     []RetainerPath `json:"paths"`
	Targets   int64          `json:"targets"`
	Unreached int64          `json:"unreached"`
	// Merged says that paths were merged by class chain.
	Merged bool `json:"merged"`
}

// DescribePaths labels the steps of the paths with the labeled references
// of their sources and names the root of each path: its kind, and for
// thread roots the thread (by the decoded name strings) and frame.
// labels may be nil (then every step's via is "?").
func DescribePaths(h *model.Heap, p graph.RetainerPaths, merged bool, labels map[model.ObjectIndex][]model.LabeledRef, names map[model.ObjectIndex]string) Retainers {
	out := Retainers{Paths: []RetainerPath{}, Targets: p.Targets, Unreached: p.Unreached, Merged: merged}
	for k, c := range p.Chains {
		rp := RetainerPath{Objects: p.Objects[k], RootKind: "system-class"}
		if rt, ok := graph.RootOf(h, c[0]); ok {
			rp.RootKind = rt.Kind.String()
			rp.RootThread, rp.RootFrame, rp.RootFrameDepth = rootPlace(h, rt, func() string {
				if s := graph.ThreadNameString(h, rt.Thread, labels); s != model.NoObject {
					return names[s]
				}
				return ""
			})
			rp.RootThreadAllocator = rt.Thread >= 0 && h.RootThreadsAreAllocators() && (rt.Kind == model.RootJavaFrame || rt.Kind == model.RootJNILocal)
		}
		head, left, tail := graph.Shown(c)
		rp.Chain = describeSteps(h, rp.Chain, model.NoObject, head, labels)
		if len(left) > 0 {
			rp.Chain = append(rp.Chain, elidedStep(h, left))
			rp.Chain = describeSteps(h, rp.Chain, left[len(left)-1], tail, labels)
		}
		out.Paths = append(out.Paths, rp)
	}
	return out
}

// describeSteps appends to steps those of the objects of part, each with
// how the one before references it; prev is the object before the first,
// or NoObject at the root.
func describeSteps(h *model.Heap, steps []PathStep, prev model.ObjectIndex, part []model.ObjectIndex, labels map[model.ObjectIndex][]model.LabeledRef) []PathStep {
	for _, x := range part {
		step := PathStep{ObjectID: ObjectID(h, x), Class: ClassName(h, x), Heap: HeapName(h, x)}
		if prev != model.NoObject {
			step.Via = via(h, prev, x, labels)
		}
		steps = append(steps, step)
		prev = x
	}
	return steps
}

// via names the reference from object a to object b.
func via(h *model.Heap, a, b model.ObjectIndex, labels map[model.ObjectIndex][]model.LabeledRef) string {
	for _, l := range labels[a] {
		if l.To == b {
			return viaLabel(l.Label, l.Weak)
		}
	}
	if c := h.ClassOf(a); c != model.NoClass && h.Classes[c].Object == b {
		return "<class>"
	}
	return "?"
}

// viaLabel is how a step's Via names a reference labeled label, weak
// for a Reference's referent.
func viaLabel(label string, weak bool) string {
	if weak {
		return label + " (weak)"
	}
	return label
}

// FrameString formats a stack frame as Java prints one.
func FrameString(f thread.Frame) string {
	where := f.File
	switch {
	case f.Line > 0:
		where = fmt.Sprintf("%s:%d", f.File, f.Line)
	case f.Line == thread.LineNative:
		where = "Native Method"
	case where == "":
		where = "Unknown Source"
	}
	return fmt.Sprintf("%s.%s(%s)", f.Class, f.Method, where)
}
