package proguard

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Mapping is what a mapping file says, indexed for the lookups that
// deobfuscate a heap: by obfuscated class name, and within a class by
// obfuscated field or method name.
type Mapping struct {
	classes         map[string]*classMap
	fields, methods int
}

// classMap is one class of a mapping.
type classMap struct {
	original string
	line     int64
	fields   map[string][]fieldMap
	methods  map[string][]methodMap
}

// fieldMap is a field of a class: its original name and type.
type fieldMap struct{ name, typ string }

// methodMap is a method line of a class.
type methodMap struct {
	name                       string
	start, end                 int
	originalStart, originalEnd int
}

// Read reads a whole mapping file. name is the file name used in errors.
// Two class lines giving the same obfuscated name are an error: the
// mapping would be ambiguous.
func Read(src io.Reader, name string) (*Mapping, error) {
	m := &Mapping{classes: map[string]*classMap{}}
	r := NewReader(src, Options{Name: name})
	var cur *classMap
	for r.Next() {
		e := r.Entry()
		switch e.Kind {
		case Class:
			if prev, dup := m.classes[e.Obfuscated]; dup {
				return nil, &FormatError{File: name, Line: e.Line,
					Msg: fmt.Sprintf("class %s is mapped to %s here and to %s on line %d", e.Obfuscated, e.Original, prev.original, prev.line)}
			}
			cur = &classMap{original: e.Original, line: e.Line}
			m.classes[e.Obfuscated] = cur
		case Field:
			if cur.fields == nil {
				cur.fields = map[string][]fieldMap{}
			}
			cur.fields[e.Obfuscated] = append(cur.fields[e.Obfuscated], fieldMap{e.Original, e.Type})
			m.fields++
		case Method:
			if cur.methods == nil {
				cur.methods = map[string][]methodMap{}
			}
			cur.methods[e.Obfuscated] = append(cur.methods[e.Obfuscated], methodMap{e.Original, e.Start, e.End, e.OriginalStart, e.OriginalEnd})
			m.methods++
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// ReadFile reads the mapping file at path.
func ReadFile(path string) (*Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Classes counts the class lines of the mapping.
func (m *Mapping) Classes() int { return len(m.classes) }

// Fields counts the field lines of the mapping.
func (m *Mapping) Fields() int { return m.fields }

// Methods counts the method lines of the mapping.
func (m *Mapping) Methods() int { return m.methods }

// Class returns the original name of the class whose obfuscated Java name
// is name, and whether the mapping names it. An array class is mapped by
// its element class: "a[][]" gives "com.example.Item[][]".
func (m *Mapping) Class(name string) (string, bool) {
	elem := name
	for {
		if c, ok := m.classes[elem]; ok {
			return c.original + name[len(elem):], true
		}
		if !strings.HasSuffix(elem, "[]") {
			return name, false
		}
		elem = elem[:len(elem)-2]
	}
}

// primitiveTypes are the Java names of the primitive types, as field
// types are written in a mapping.
var primitiveTypes = map[string]bool{
	"boolean": true, "char": true, "float": true, "double": true,
	"byte": true, "short": true, "int": true, "long": true,
}

// Field returns the original name of field field of the class whose
// obfuscated name is class (the class that declares the field), and
// whether the mapping names it. typ is the field's type as a heap dump
// knows it: a primitive's Java name ("int"), or "" for a reference. It
// only matters when several fields of the class were given the same
// obfuscated name (ProGuard's -overloadaggressively), to tell them apart.
func (m *Mapping) Field(class, field, typ string) (string, bool) {
	c := m.classes[class]
	if c == nil {
		return field, false
	}
	candidates := c.fields[field]
	if len(candidates) == 1 {
		return candidates[0].name, true
	}
	found := ""
	for _, f := range candidates {
		if typ == f.typ || typ == "" && !primitiveTypes[f.typ] {
			if found != "" {
				return field, false
			}
			found = f.name
		}
	}
	if found == "" {
		return field, false
	}
	return found, true
}

// Frame returns the original class, method and line of a stack frame in
// method method of the class whose obfuscated name is class, at line
// line of the obfuscated build, and whether the mapping names the
// method. The method line whose obfuscated range holds the line decides;
// when code was inlined into the method, several lines share that range
// and the last of them is the method itself (the frames of the inlined
// code are not restored). A line no range holds (or none, line <= 0)
// names the method only when all its lines give one name; the original
// line is then unknown: 0, or line itself when it was <= 0 or the
// mapping has no line ranges for the method. A method that R8 moved from
// another class names that class.
func (m *Mapping) Frame(class, method string, line int) (origClass, origMethod string, origLine int, ok bool) {
	origClass, _ = m.Class(class)
	c := m.classes[class]
	if c == nil || len(c.methods[method]) == 0 {
		return origClass, method, line, false
	}
	lines := c.methods[method]
	var pick *methodMap
	for i := range lines {
		if l := &lines[i]; line > 0 && l.start <= line && line <= l.end {
			pick = l
		}
	}
	if pick != nil {
		origLine = pick.originalLine(line)
	} else {
		ranged := false
		for i := range lines {
			if lines[i].name != lines[0].name {
				return origClass, method, line, false
			}
			ranged = ranged || lines[i].start >= 0
		}
		pick = &lines[0]
		if line <= 0 || !ranged {
			origLine = line
		}
	}
	name := pick.name
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		origClass, name = name[:dot], name[dot+1:]
	}
	return origClass, name, origLine, true
}

// originalLine maps line, within the obfuscated range of method line l,
// to the original source: a range of the same length maps line by line,
// any other range to its first line; no original range leaves the line.
func (l *methodMap) originalLine(line int) int {
	switch {
	case l.originalStart < 0:
		return line
	case l.originalEnd-l.originalStart == l.end-l.start:
		return l.originalStart + line - l.start
	}
	return l.originalStart
}
