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
// ("java.lang.String[]") — into the Java name ("java.lang.Object[]",
// "int[][]").
func JavaClassName(name string) string {
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	if dims == 0 {
		return strings.ReplaceAll(name, "/", ".")
	}
	elem := name[dims:]
	switch {
	case len(elem) == 1 && primitiveNames[elem[0]] != "":
		elem = primitiveNames[elem[0]]
	case strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";"):
		elem = strings.ReplaceAll(elem[1:len(elem)-1], "/", ".")
	default:
		elem = strings.ReplaceAll(elem, "/", ".")
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
