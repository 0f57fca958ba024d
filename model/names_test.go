package model

import "testing"

func TestJavaClassName(t *testing.T) {
	cases := map[string]string{
		"java/lang/String":           "java.lang.String",
		"[Ljava/lang/Object;":        "java.lang.Object[]",
		"[[I":                        "int[][]",
		"[J":                         "long[]",
		"java.lang.String[]":         "java.lang.String[]",
		"[Ljava.lang.Object;":        "java.lang.Object[]",
		"java/util/HashMap$Node":     "java.util.HashMap$Node",
		"[[Ljava/util/HashMap$Node;": "java.util.HashMap$Node[][]",
		"java/lang/String$$StringConcat+0x0000aa": "java.lang.String$$StringConcat/0x0000aa",
		"java.lang.String$$Lambda/0x1234":         "java.lang.String$$Lambda/0x1234",
		"Main":                                    "Main",
	}
	for in, want := range cases {
		if got := JavaClassName(in); got != want {
			t.Errorf("JavaClassName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArrayElemType(t *testing.T) {
	cases := map[string]Type{
		"int[]": TypeInt, "byte[]": TypeByte, "int[][]": TypeObject, "java.lang.Object[]": TypeObject,
		"java.lang.String": 0, "boolean[]": TypeBoolean,
	}
	for in, want := range cases {
		if got := arrayElemType(in); got != want {
			t.Errorf("arrayElemType(%q) = %d, want %d", in, got, want)
		}
	}
	if PrimitiveArrayName(TypeDouble) != "double[]" {
		t.Errorf("PrimitiveArrayName(double) = %q", PrimitiveArrayName(TypeDouble))
	}
}
