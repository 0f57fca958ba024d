package heap

import (
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/model"
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

// ReadJVMInfo reads the system properties of the JVM that wrote h from
// the static java.lang.System.props: a java.util.Properties whose entries
// live in its ConcurrentHashMap map (JDK 9+) or in its own Hashtable
// table (JDK 8 and older). Keys or values that are not Strings are left
// out. A dump without those objects gives an empty JVMInfo.
func ReadJVMInfo(h *model.Heap) (JVMInfo, error) {
	var info JVMInfo
	props, err := systemProps(h)
	if props == model.NoObject || err != nil {
		return info, err
	}
	entries, err := propertyEntries(h, props)
	if err != nil {
		return info, err
	}
	info.Properties = entries
	info.Version = info.Property("java.runtime.version")
	if info.Version == "" {
		info.Version = info.Property("java.version")
	}
	info.VM = strings.TrimSpace(info.Property("java.vm.name") + " " + info.Property("java.vm.version"))
	info.Command = info.Property("sun.java.command")
	info.Home = info.Property("java.home")
	return info, nil
}

// systemProps is the object java.lang.System.props refers to.
func systemProps(h *model.Heap) (model.ObjectIndex, error) {
	for i := range h.Classes {
		c := &h.Classes[i]
		if c.Name != "java.lang.System" || c.Object == model.NoObject {
			continue
		}
		vals, err := model.ReadValues(h, []model.ObjectIndex{c.Object}, model.ValueOptions{})
		if err != nil {
			return model.NoObject, err
		}
		if v, ok := vals[c.Object]; ok {
			if f, ok := v.Field("props"); ok {
				return f.Ref, nil
			}
		}
	}
	return model.NoObject, nil
}

// propertyEntries reads the String keys and values of a Properties
// object, sorted by key.
func propertyEntries(h *model.Heap, props model.ObjectIndex) ([]Property, error) {
	table, err := readFieldRef(h, props, "map")
	if err != nil {
		return nil, err
	}
	if table != model.NoObject {
		if table, err = readFieldRef(h, table, "table"); err != nil {
			return nil, err
		}
	} else if table, err = readFieldRef(h, props, "table"); err != nil {
		return nil, err
	}
	if table == model.NoObject {
		return nil, nil
	}
	vals, err := model.ReadValues(h, []model.ObjectIndex{table}, model.ValueOptions{Elements: -1})
	if err != nil {
		return nil, err
	}
	arr, ok := vals[table]
	if !ok {
		return nil, nil
	}
	var nodes []model.ObjectIndex
	for _, e := range arr.Elements {
		if e.Ref != model.NoObject {
			nodes = append(nodes, e.Ref)
		}
	}
	type pair struct{ key, value model.ObjectIndex }
	var pairs []pair
	seen := map[model.ObjectIndex]bool{}
	for len(nodes) > 0 && len(pairs) < maxProperties {
		vals, err := model.ReadValues(h, nodes, model.ValueOptions{})
		if err != nil {
			return nil, err
		}
		var next []model.ObjectIndex
		for _, n := range nodes {
			v, ok := vals[n]
			if !ok || seen[n] {
				continue
			}
			seen[n] = true
			key, _ := v.Field("key")
			val, ok := v.Field("val") // ConcurrentHashMap$Node
			if !ok {
				val, _ = v.Field("value") // Hashtable$Entry
			}
			if key.Ref != model.NoObject && val.Ref != model.NoObject {
				pairs = append(pairs, pair{key.Ref, val.Ref})
			}
			if nx, ok := v.Field("next"); ok && nx.Ref != model.NoObject && !seen[nx.Ref] {
				next = append(next, nx.Ref)
			}
		}
		nodes = next
	}
	var strs []model.ObjectIndex
	for _, p := range pairs {
		strs = append(strs, p.key, p.value)
	}
	texts, err := model.ReadStrings(h, strs)
	if err != nil {
		return nil, err
	}
	out := make([]Property, 0, len(pairs))
	for _, p := range pairs {
		k, okKey := texts[p.key]
		v, okValue := texts[p.value]
		if okKey && okValue {
			out = append(out, Property{Key: k, Value: v})
		}
	}
	slices.SortFunc(out, func(a, b Property) int { return strings.Compare(a.Key, b.Key) })
	return slices.CompactFunc(out, func(a, b Property) bool { return a.Key == b.Key }), nil
}

// readFieldRef is the object the field name of object o refers to; NoObject
// when it has no such field or it is null.
func readFieldRef(h *model.Heap, o model.ObjectIndex, name string) (model.ObjectIndex, error) {
	vals, err := model.ReadValues(h, []model.ObjectIndex{o}, model.ValueOptions{})
	if err != nil {
		return model.NoObject, err
	}
	if v, ok := vals[o]; ok {
		if f, ok := v.Field(name); ok {
			return f.Ref, nil
		}
	}
	return model.NoObject, nil
}
