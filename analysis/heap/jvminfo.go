package heap

import (
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
)

// JVMInfo is what the objects of a heap dump tell of the JVM that wrote
// it, as Eclipse MAT and VisualVM show on their overview: the thread that
// threw an OutOfMemoryError, the Java version, the command line and the
// system properties (java.lang.System.props). Every value comes from the
// dump and is untrusted text.
type JVMInfo struct {
	// OOMThread names the thread whose innermost frame is
	// OutOfMemoryError.<init> (the JVM was building the error when it
	// wrote the dump, as -XX:+HeapDumpOnOutOfMemoryError does), and
	// OOMFrame is the frame below it: where the error was thrown.
	OOMThread string `json:"oom_thread,omitempty"`
	OOMFrame  string `json:"oom_frame,omitempty"`
	// Version is java.runtime.version (else java.version), VM
	// java.vm.name with java.vm.version, Command sun.java.command (the
	// main class or jar and its arguments), Home java.home.
	Version string `json:"version,omitempty"`
	VM      string `json:"vm,omitempty"`
	Command string `json:"command,omitempty"`
	Home    string `json:"home,omitempty"`
	// Properties are the system properties, by key.
	Properties []Property `json:"properties,omitempty"`
}

// Property is one system property.
type Property struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// IsEmpty tells whether the dump told nothing of its JVM.
func (j JVMInfo) IsEmpty() bool {
	return j.OOMThread == "" && len(j.Properties) == 0
}

// Property returns the value of the system property key, "" when the dump
// does not hold it.
func (j JVMInfo) Property(key string) string {
	if k, ok := slices.BinarySearchFunc(j.Properties, key, func(p Property, key string) int { return strings.Compare(p.Key, key) }); ok {
		return j.Properties[k].Value
	}
	return ""
}

// maxProperties bounds the entries read from the properties map: a
// dump's table and chains are untrusted, and a JVM has a few hundred.
const maxProperties = 10000

// ReadJVMInfo reads what h tells of the JVM that wrote it: the thread
// building an OutOfMemoryError (its innermost frame
// OutOfMemoryError.<init>, as HotSpot dumps it on
// -XX:+HeapDumpOnOutOfMemoryError) with the frame below the constructors,
// and the system properties of the static java.lang.System.props, a
// java.util.Properties whose entries live in its ConcurrentHashMap (JDK
// 9+) or its own Hashtable table (JDK 8 and older). The entries are found
// through the reference graph, by class, and read from the dump in one
// pass, their Strings in a second. Keys or values that are not Strings
// are left out. A dump without those objects gives an empty JVMInfo.
func ReadJVMInfo(h *model.Heap) (JVMInfo, error) {
	var info JVMInfo
	thread, frame := oomThread(h)
	info.OOMFrame = frame
	nodes := propertyNodes(h)
	objs := nodes
	if thread.Object != model.NoObject && thread.Name == "" {
		objs = append(objs[:len(objs):len(objs)], thread.Object)
	}
	if len(objs) == 0 {
		info.OOMThread = thread.Name
		return info, nil
	}
	vals, err := model.ReadValues(h, objs, model.ValueOptions{})
	if err != nil {
		return info, err
	}
	type pair struct{ key, value model.ObjectIndex }
	var pairs []pair
	var strs []model.ObjectIndex
	for _, n := range nodes {
		v, ok := vals[n]
		if !ok {
			continue
		}
		key, _ := v.Field("key")
		val, ok := v.Field("val") // ConcurrentHashMap$Node
		if !ok {
			val, _ = v.Field("value") // Hashtable$Entry
		}
		if key.Ref != model.NoObject && val.Ref != model.NoObject {
			pairs = append(pairs, pair{key.Ref, val.Ref})
			strs = append(strs, key.Ref, val.Ref)
		}
	}
	threadName := model.NoObject
	if v, ok := vals[thread.Object]; ok && thread.Object != model.NoObject {
		if f, ok := v.Field("name"); ok && f.Ref != model.NoObject {
			threadName = f.Ref
			strs = append(strs, f.Ref)
		}
	}
	texts, err := model.ReadStrings(h, strs)
	if err != nil {
		return info, err
	}
	info.OOMThread = thread.Name
	if info.OOMThread == "" && threadName != model.NoObject {
		info.OOMThread = texts[threadName]
	}
	for _, p := range pairs {
		k, okKey := texts[p.key]
		v, okValue := texts[p.value]
		if okKey && okValue {
			info.Properties = append(info.Properties, Property{Key: k, Value: v})
		}
	}
	slices.SortFunc(info.Properties, func(a, b Property) int { return strings.Compare(a.Key, b.Key) })
	info.Properties = slices.CompactFunc(info.Properties, func(a, b Property) bool { return a.Key == b.Key })
	info.Version = info.Property("java.runtime.version")
	if info.Version == "" {
		info.Version = info.Property("java.version")
	}
	info.VM = strings.TrimSpace(info.Property("java.vm.name") + " " + info.Property("java.vm.version"))
	info.Command = info.Property("sun.java.command")
	info.Home = info.Property("java.home")
	return info, nil
}

// oomThread finds the thread whose innermost frame builds an
// OutOfMemoryError, and the frame below the constructors: where the
// error was thrown. A zero Thread (Object NoObject) when there is none.
func oomThread(h *model.Heap) (model.Thread, string) {
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
		frame := ""
		if k < len(frames) {
			frame = FrameString(frames[k])
		}
		return t, frame
	}
	return model.Thread{Object: model.NoObject}, ""
}

// propertyNodes finds the entries of java.lang.System.props through the
// reference graph: the Properties object, its ConcurrentHashMap (JDK 9+)
// or itself (a Hashtable, JDK 8 and older), the map's table array, and the
// entries it holds and their chains, told apart by class. At most
// maxProperties entries.
func propertyNodes(h *model.Heap) []model.ObjectIndex {
	props := model.NoObject
	for i := range h.Classes {
		c := &h.Classes[i]
		if c.Name != "java.lang.System" {
			continue
		}
		for _, st := range c.Statics {
			if st.Name == "props" && st.Type == model.TypeObject {
				if o, ok := h.Lookup(st.Value); ok {
					props = o
				}
			}
		}
	}
	if props == model.NoObject {
		return nil
	}
	holder := props
	if m := refOfClass(h, props, "java.util.concurrent.ConcurrentHashMap"); m != model.NoObject {
		holder = m
	}
	table := refOfClass(h, holder, "java.util.concurrent.ConcurrentHashMap$Node[]", "java.util.Hashtable$Entry[]")
	if table == model.NoObject {
		return nil
	}
	entry := func(o model.ObjectIndex) bool {
		c := h.ClassOf(o)
		return c != model.NoClass && (h.Classes[c].Name == "java.util.concurrent.ConcurrentHashMap$Node" || h.Classes[c].Name == "java.util.Hashtable$Entry")
	}
	var nodes []model.ObjectIndex
	seen := map[model.ObjectIndex]bool{}
	queue := slices.Clone(h.Refs(table))
	for len(queue) > 0 && len(nodes) < maxProperties {
		n := queue[0]
		queue = queue[1:]
		if seen[n] || !entry(n) {
			continue
		}
		seen[n] = true
		nodes = append(nodes, n)
		queue = append(queue, h.Refs(n)...) // the next entry of its chain
	}
	return nodes
}

// refOfClass is the first object o refers to whose class is one of
// names; NoObject when there is none.
func refOfClass(h *model.Heap, o model.ObjectIndex, names ...string) model.ObjectIndex {
	for _, r := range h.Refs(o) {
		if c := h.ClassOf(r); c != model.NoClass && slices.Contains(names, h.Classes[c].Name) {
			return r
		}
	}
	return model.NoObject
}
