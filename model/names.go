package model

import "strings"

var primitiveNames = map[byte]string{
	'Z': "boolean", 'C': "char", 'F': "float", 'D': "double",
	'B': "byte", 'S': "short", 'I': "int", 'J': "long",
}

// PrimitiveArrayName returns the Java name of the array class with element
// type t, e.g. "int[]".
func PrimitiveArrayName(t Type) string {
	for sig, name := range primitiveNames {
		if typeFromSig(sig) == t {
			return name + "[]"
		}
	}
	return ""
}

func typeFromSig(c byte) Type {
	switch c {
	case 'Z':
		return TypeBoolean
	case 'C':
		return TypeChar
	case 'F':
		return TypeFloat
	case 'D':
		return TypeDouble
	case 'B':
		return TypeByte
	case 'S':
		return TypeShort
	case 'I':
		return TypeInt
	case 'J':
		return TypeLong
	case 'L', '[':
		return TypeObject
	}
	return 0
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
		case len(elem) == 1 && primitiveNames[elem[0]] != "":
			return primitiveNames[elem[0]] + strings.Repeat("[]", dims)
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
	for sig, name := range primitiveNames {
		if name == base {
			return typeFromSig(sig)
		}
	}
	return TypeObject
}
