package model

import "strings"

// primitives maps the signature letter of each primitive type to its Java
// name and type code.
var primitives = map[byte]struct {
	name string
	t    Type
}{
	'Z': {"boolean", TypeBoolean}, 'C': {"char", TypeChar}, 'F': {"float", TypeFloat},
	'D': {"double", TypeDouble}, 'B': {"byte", TypeByte}, 'S': {"short", TypeShort},
	'I': {"int", TypeInt}, 'J': {"long", TypeLong},
}

// PrimitiveArrayName returns the Java name of the array class with element
// type t, e.g. "int[]".
func PrimitiveArrayName(t Type) string {
	for _, p := range primitives {
		if p.t == t {
			return p.name + "[]"
		}
	}
	return ""
}

// JavaClassName turns the class names dumps use — internal
// ("java/lang/String", "[Ljava/lang/Object;", "[[I") or already external
// ("java.lang.String[]", "[Ljava.lang.Object;") — into the Java name
// ("java.lang.Object[]", "int[][]"). A hidden class keeps its
// "/0x..." suffix ("+0x..." in HotSpot's internal form).
func JavaClassName(name string) string {
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	elem := name[dims:]
	if dims > 0 {
		switch {
		case len(elem) == 1 && primitives[elem[0]].name != "":
			return primitives[elem[0]].name + strings.Repeat("[]", dims)
		case strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";"):
			elem = elem[1 : len(elem)-1]
		}
	}
	if !strings.Contains(elem, ".") {
		elem = strings.ReplaceAll(elem, "/", ".")
		if i := strings.LastIndex(elem, "+0x"); i >= 0 {
			elem = elem[:i] + "/" + elem[i+1:]
		}
	}
	return elem + strings.Repeat("[]", dims)
}

// arrayElemType returns the element type of the array class with the given
// Java name: TypeObject for object arrays (multi-dimensional arrays too),
// the primitive type for "int[]" and the like, 0 for non-arrays.
func arrayElemType(javaName string) Type {
	if !strings.HasSuffix(javaName, "[]") {
		return 0
	}
	base := strings.TrimSuffix(javaName, "[]")
	if strings.HasSuffix(base, "[]") {
		return TypeObject
	}
	for _, p := range primitives {
		if p.name == base {
			return p.t
		}
	}
	return TypeObject
}
