package hprofascii

import "strings"

var primitiveNames = map[byte]string{
	'Z': "boolean", 'B': "byte", 'C': "char", 'S': "short",
	'I': "int", 'J': "long", 'F': "float", 'D': "double",
}

// JavaName returns the external Java name of a class printed in any of
// the forms the agents use: JVM signatures (Ljava/lang/Object;),
// descriptors ([I, [Ljava.lang.String;, [L<Unknown>;), slashed or dotted
// names. The result is dotted with one [] per array dimension
// (java.lang.Object, int[], java.lang.String[], <Unknown>[]).
func JavaName(printed []byte) string {
	dims := 0
	for dims < len(printed) && printed[dims] == '[' {
		dims++
	}
	base := printed[dims:]
	var name string
	switch {
	case dims > 0 && len(base) == 1 && primitiveNames[base[0]] != "":
		name = primitiveNames[base[0]]
	case len(base) >= 2 && base[0] == 'L' && base[len(base)-1] == ';':
		name = string(base[1 : len(base)-1])
	default:
		name = string(base)
	}
	return strings.ReplaceAll(name, "/", ".") + strings.Repeat("[]", dims)
}
