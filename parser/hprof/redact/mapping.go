package redact

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// mapping is the ProGuard mapping of the renamed classes, their fields
// and the methods of their frames, original names first.
func (n *renamer) mapping() string {
	type entry struct{ orig, obf string }
	var classes []entry
	byOrig := map[string]uint64{}
	for id, obf := range n.classes {
		if strings.HasPrefix(obf, "[") {
			continue
		}
		orig := n.s.className(id)
		classes = append(classes, entry{orig, javaName(obf)})
		byOrig[orig] = id
	}
	slices.SortFunc(classes, func(a, b entry) int { return strings.Compare(a.orig, b.orig) })
	var b strings.Builder
	for _, c := range classes {
		fmt.Fprintf(&b, "%s -> %s:\n", c.orig, c.obf)
		var lines []string
		if ci := n.s.classes[byOrig[c.orig]]; ci != nil {
			for _, f := range ci.fields {
				lines = append(lines, n.fieldLine(f.Type, f.NameID))
			}
			for _, st := range ci.statics {
				lines = append(lines, n.fieldLine(st.Type, st.NameID))
			}
		}
		slices.Sort(lines)
		lines = slices.Compact(lines)
		lines = append(lines, slices.Sorted(maps.Keys(n.methods[c.orig]))...)
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// fieldLine is the mapping line of a field of a renamed class.
func (n *renamer) fieldLine(t hprof.Type, nameID uint64) string {
	typ := "java.lang.Object"
	if t != hprof.TypeObject {
		typ = t.String()
	}
	return fmt.Sprintf("    %s %s -> %s", typ, n.s.utf8[nameID], n.member(n.k, 'f', nameID))
}

// javaSignature turns a method descriptor "(ILjava/lang/String;)V" into
// the Java return type and comma-separated argument types a mapping
// writes ("void", "int,java.lang.String"); a descriptor it cannot read
// gives "void" and no arguments.
func javaSignature(desc string) (ret string, args string) {
	open, closing := strings.IndexByte(desc, '('), strings.IndexByte(desc, ')')
	if open != 0 || closing < 0 {
		return "void", ""
	}
	var list []string
	for rest := desc[1:closing]; rest != ""; {
		t, n := javaType(rest)
		if n == 0 {
			return "void", ""
		}
		list = append(list, t)
		rest = rest[n:]
	}
	ret, n := javaType(desc[closing+1:])
	if n == 0 {
		return "void", ""
	}
	return ret, strings.Join(list, ",")
}

// javaType reads one field descriptor at the start of d: its Java name
// and length, 0 when there is none.
func javaType(d string) (string, int) {
	dims := len(d) - len(strings.TrimLeft(d, "["))
	if dims == len(d) {
		return "", 0
	}
	name, n := "", 1
	switch d[dims] {
	case 'Z':
		name = "boolean"
	case 'C':
		name = "char"
	case 'F':
		name = "float"
	case 'D':
		name = "double"
	case 'B':
		name = "byte"
	case 'S':
		name = "short"
	case 'I':
		name = "int"
	case 'J':
		name = "long"
	case 'V':
		name = "void"
	case 'L':
		semi := strings.IndexByte(d[dims:], ';')
		if semi < 0 {
			return "", 0
		}
		name, n = javaName(d[dims+1:dims+semi]), semi+1
	default:
		return "", 0
	}
	return name + strings.Repeat("[]", dims), dims + n
}
