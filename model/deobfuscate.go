package model

import "github.com/hprofctl/hprofctl/parser/proguard"

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
			c.Fields = deobfuscateFields(m, obfuscated, c.Fields)
			c.Statics = deobfuscateStatics(m, obfuscated, c.Statics)
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

// deobfuscateFields returns the instance fields of the class obfuscated
// as class with their original names: a new slice when a name changes,
// fields itself otherwise.
func deobfuscateFields(m *proguard.Mapping, class string, fields []Field) []Field {
	var out []Field
	for k, f := range fields {
		name, ok := m.Field(class, f.Name, fieldTypeName(f.Type))
		if !ok || name == f.Name {
			continue
		}
		if out == nil {
			out = append([]Field(nil), fields...)
		}
		out[k].Name = name
	}
	if out == nil {
		return fields
	}
	return out
}

// deobfuscateStatics is deobfuscateFields for static fields.
func deobfuscateStatics(m *proguard.Mapping, class string, statics []Static) []Static {
	var out []Static
	for k, s := range statics {
		name, ok := m.Field(class, s.Name, fieldTypeName(s.Type))
		if !ok || name == s.Name {
			continue
		}
		if out == nil {
			out = append([]Static(nil), statics...)
		}
		out[k].Name = name
	}
	if out == nil {
		return statics
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
		frames := make([]Frame, len(t.Frames))
		for k, f := range t.Frames {
			class, method, line, ok := m.Frame(f.Class, f.Method, int(f.Line))
			f.Class = class
			if ok {
				known := f.Line > 0
				f.Method, f.Line = method, int32(line)
				if known && line == 0 {
					f.Line = LineUnknown
				}
			}
			frames[k] = f
		}
		t.Frames = frames
		out[i] = t
	}
	return out
}
