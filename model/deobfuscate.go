package model

import (
	"slices"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/proguard"
)

// Deobfuscate gives back the names that ProGuard or R8 replaced, as
// mapping m records them (docs/proguard.md#what-the-names-apply-to): the
// names of classes (arrays by their element class), of each class's
// instance and static fields (as the class that declares them maps them),
// the classes, methods and lines of the frames of the heap's stack traces,
// and what Profile.Deobfuscate maps in the file's profile. Names m does
// not know are kept. A nil m changes nothing, and so does a second call:
// the names are mapped once, from those the dump has. The slices it
// changes are replaced rather than written into, so that whatever else
// holds them keeps the dump's names.
func (h *Heap) Deobfuscate(m *proguard.Mapping) {
	if m == nil || h.deobfuscated {
		return
	}
	h.deobfuscated = true
	classes := make([]Class, len(h.Classes))
	for i, c := range h.Classes {
		obfuscated := c.Name
		c.Name, _ = m.Class(obfuscated)
		if !c.IsArray() {
			c.Fields = renameMembers(m, obfuscated, c.Fields, func(f *Field) *string { return &f.Name }, func(f *Field) Type { return f.Type })
			c.Statics = renameMembers(m, obfuscated, c.Statics, func(s *Static) *string { return &s.Name }, func(s *Static) Type { return s.Type })
		}
		classes[i] = c
	}
	h.Classes = classes
	h.Traces = deobfuscateTraces(m, h.Traces)
	h.profile.Deobfuscate(m)
}

// Deobfuscate gives back, as Heap.Deobfuscate does, the names of the
// classes, methods and lines of the frames of the profile's stack traces,
// and the classes of its allocation sites. A nil Profile or mapping, or a
// second call, changes nothing.
func (p *Profile) Deobfuscate(m *proguard.Mapping) {
	if p == nil || m == nil || p.deobfuscated {
		return
	}
	p.deobfuscated = true
	p.Traces = deobfuscateTraces(m, p.Traces)
	if p.Sites != nil {
		s := *p.Sites
		s.Sites = make([]AllocSite, len(p.Sites.Sites))
		for k, site := range p.Sites.Sites {
			site.Class, _ = m.Class(site.Class)
			s.Sites[k] = site
		}
		p.Sites = &s
	}
}

// fieldTypeName is how proguard.Mapping.Field names a field's type: a
// primitive's Java name, "" for a reference.
func fieldTypeName(t Type) string {
	if t == TypeObject {
		return ""
	}
	return TypeName(t)
}

// renameMembers returns the fields (instance or static, which name and
// typ read) of the class obfuscated as class with their original names:
// a copy when a name changes, members itself otherwise.
func renameMembers[T any](m *proguard.Mapping, class string, members []T, name func(*T) *string, typ func(*T) Type) []T {
	var out []T
	for k := range members {
		obfuscated := *name(&members[k])
		orig, ok := m.Field(class, obfuscated, fieldTypeName(typ(&members[k])))
		if !ok || orig == obfuscated {
			continue
		}
		if out == nil {
			out = slices.Clone(members)
		}
		*name(&out[k]) = orig
	}
	if out == nil {
		return members
	}
	return out
}

// deobfuscateTraces returns traces with their frames' original classes,
// methods and lines, in new slices.
func deobfuscateTraces(m *proguard.Mapping, traces []Trace) []Trace {
	if traces == nil {
		return nil
	}
	out := make([]Trace, len(traces))
	for i, t := range traces {
		frames := make([]thread.Frame, len(t.Frames))
		for k, f := range t.Frames {
			class, method, line, ok := m.Frame(f.Class, f.Method, int(f.Line))
			f.Class = class
			if ok {
				known := f.Line > 0
				f.Method, f.Line = method, int32(line)
				if known && line == 0 {
					f.Line = thread.LineUnknown
				}
			}
			frames[k] = f
		}
		t.Frames = frames
		out[i] = t
	}
	return out
}
