package hproftest

import "unicode/utf16"

// JDK holds core JDK classes as a JDK 17 HotSpot dump names them (internal
// names, fields simplified), and writes common objects with them.
type JDK struct {
	w *Writer

	Object         *Class // java/lang/Object
	String         *Class // java/lang/String: value [B, coder B, hash I, hashIsZero Z
	Thread         *Class // java/lang/Thread: name, tid, priority, daemon, contextClassLoader
	ClassLoader    *Class // java/lang/ClassLoader: parent, name
	AbstractMap    *Class // java/util/AbstractMap: keySet, values
	HashMap        *Class // java/util/HashMap: table, entrySet, size, modCount, threshold, loadFactor
	HashMapNode    *Class // java/util/HashMap$Node: hash, key, value, next
	ArrayList      *Class // java/util/ArrayList: elementData, size (modCount inherited)
	AbstractList   *Class // java/util/AbstractList: modCount
	LinkedList     *Class // java/util/LinkedList: size, first, last
	LinkedListNode *Class // java/util/LinkedList$Node: item, next, prev

	ObjectArray *Class // [Ljava/lang/Object;
	NodeArray   *Class // [Ljava/util/HashMap$Node;
	ByteArray   *Class // [B
	CharArray   *Class // [C
	IntArray    *Class // [I
	LongArray   *Class // [J
}

// DeclareJDK declares the core classes (UTF8 and LOAD_CLASS records);
// their CLASS_DUMPs are written by DumpClass over Classes.
func (w *Writer) DeclareJDK() *JDK {
	j := &JDK{w: w}
	ref := func(name string) Field { return Field{name, TypeObject} }
	decl := func(name string, super *Class, fields ...Field) *Class {
		return w.DeclareClass(ClassSpec{Name: name, Super: super, Fields: fields})
	}
	j.Object = decl("java/lang/Object", nil)
	j.String = decl("java/lang/String", j.Object, ref("value"), Field{"coder", TypeByte},
		Field{"hash", TypeInt}, Field{"hashIsZero", TypeBoolean})
	j.Thread = decl("java/lang/Thread", j.Object, ref("name"), Field{"tid", TypeLong},
		Field{"priority", TypeInt}, Field{"daemon", TypeBoolean}, ref("contextClassLoader"))
	j.ClassLoader = decl("java/lang/ClassLoader", j.Object, ref("parent"), ref("name"))
	j.AbstractMap = decl("java/util/AbstractMap", j.Object, ref("keySet"), ref("values"))
	j.HashMap = decl("java/util/HashMap", j.AbstractMap, ref("table"), ref("entrySet"),
		Field{"size", TypeInt}, Field{"modCount", TypeInt}, Field{"threshold", TypeInt},
		Field{"loadFactor", TypeFloat})
	j.HashMapNode = decl("java/util/HashMap$Node", j.Object, Field{"hash", TypeInt},
		ref("key"), ref("value"), ref("next"))
	j.AbstractList = decl("java/util/AbstractList", j.Object, Field{"modCount", TypeInt})
	j.ArrayList = decl("java/util/ArrayList", j.AbstractList, ref("elementData"), Field{"size", TypeInt})
	j.LinkedList = decl("java/util/LinkedList", j.AbstractList, Field{"size", TypeInt},
		ref("first"), ref("last"))
	j.LinkedListNode = decl("java/util/LinkedList$Node", j.Object, ref("item"), ref("next"), ref("prev"))
	j.ObjectArray = decl("[Ljava/lang/Object;", j.Object)
	j.NodeArray = decl("[Ljava/util/HashMap$Node;", j.Object)
	j.ByteArray = decl("[B", j.Object)
	j.CharArray = decl("[C", j.Object)
	j.IntArray = decl("[I", j.Object)
	j.LongArray = decl("[J", j.Object)
	return j
}

// DefineJDK declares the core classes and writes their CLASS_DUMPs; a
// heap dump must be open.
func (w *Writer) DefineJDK() *JDK {
	j := w.DeclareJDK()
	for _, c := range j.Classes() {
		w.DumpClass(c)
	}
	return j
}

// Classes returns the core classes, superclasses before subclasses.
func (j *JDK) Classes() []*Class {
	return []*Class{j.Object, j.String, j.Thread, j.ClassLoader, j.AbstractMap, j.HashMap,
		j.HashMapNode, j.AbstractList, j.ArrayList, j.LinkedList, j.LinkedListNode,
		j.ObjectArray, j.NodeArray, j.ByteArray, j.CharArray, j.IntArray, j.LongArray}
}

// NewString writes a java.lang.String holding text and its value array, the
// array first, as a JDK 9+ heap holds them: Latin-1 bytes (coder 0) when
// every character fits, UTF-16 otherwise (coder 1). It returns the
// String's address and the array's.
func (j *JDK) NewString(text string) (str, value ID) {
	units := utf16.Encode([]rune(text))
	latin1 := true
	for _, u := range units {
		if u > 0xFF {
			latin1 = false
			break
		}
	}
	var data []byte
	coder := int8(0)
	if latin1 {
		data = make([]byte, len(units))
		for i, u := range units {
			data[i] = byte(u)
		}
	} else {
		coder = 1
		data = UTF16(text)
	}
	value = j.w.PrimArray(TypeByte, data)
	h := StringHash(text)
	str = j.w.Instance(j.String, Ref(value), Byte(coder), Int(h), Boolean(h == 0))
	return str, value
}

// StringHash is java.lang.String.hashCode of s.
func StringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}
