package redact

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// PlatformPackages are the package prefixes whose classes keep their
// names, and their fields and methods theirs, under Options.Names: their
// names are public, and the analyses recognise the JDK's classes by them.
var PlatformPackages = []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "android.", "dalvik.", "libcore."}

// renamer replaces the names of application classes, fields and methods.
// Renamed names get string records of their own, with fresh ids, written
// before the first record; a string record is written only while a kept
// name still refers to it.
type renamer struct {
	k       *keyer
	s       *scan
	keepStr map[uint64]bool   // old string ids still referred to
	ids     map[string]uint64 // new string text -> its fresh id
	order   []string          // new strings, in id order
	next    uint64

	classes map[uint64]string // renamed class id -> new internal name
	frames  map[uint64][3]uint64
	methods map[string]map[string]string // original class -> method lines
}

// newRenamer decides every new name from the first pass.
func newRenamer(s *scan, k *keyer) *renamer {
	n := &renamer{k: k, s: s, keepStr: map[uint64]bool{}, ids: map[string]uint64{}, next: s.maxStr + 1,
		classes: map[uint64]string{}, frames: map[uint64][3]uint64{}, methods: map[string]map[string]string{}}
	for id := range s.heapNames {
		n.keepStr[id] = true
	}
	// The new names are numbered in the order of the class ids, so that
	// a key redacts a dump the same way every time.
	for _, id := range slices.Sorted(maps.Keys(s.classNames)) {
		nameID := s.classNames[id]
		if renamed := n.className(s.utf8[nameID]); renamed != s.utf8[nameID] {
			n.classes[id] = renamed
			n.id(renamed)
		} else {
			n.keepStr[nameID] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.classes)) {
		c := s.classes[id]
		if _, renamed := n.classes[id]; renamed {
			for _, f := range c.fields {
				n.id(n.member(n.k, 'f', f.NameID))
			}
			for _, st := range c.statics {
				n.id(n.member(n.k, 'f', st.NameID))
			}
			continue
		}
		for _, f := range c.fields {
			n.keepStr[f.NameID] = true
		}
		for _, st := range c.statics {
			n.keepStr[st.NameID] = true
		}
	}
	for _, f := range s.frames {
		n.frame(f)
	}
	return n
}

// frame decides the new method, signature and source names of a frame.
func (n *renamer) frame(f hprof.Frame) {
	sig := n.signature(n.s.utf8[f.SignatureID])
	ids := [3]uint64{f.MethodID, f.SignatureID, f.SourceID}
	if sig != n.s.utf8[f.SignatureID] {
		ids[1] = n.id(sig)
	} else {
		n.keepStr[f.SignatureID] = true
	}
	class := n.s.serials[f.ClassSerial]
	if _, renamed := n.classes[class]; !renamed {
		n.keepStr[f.MethodID], n.keepStr[f.SourceID] = true, true
		n.frames[f.ID] = ids
		return
	}
	obf := n.member(n.k, 'm', f.MethodID)
	ids[0] = n.id(obf)
	if f.SourceID != 0 {
		ids[2] = n.id("SourceFile")
	}
	n.frames[f.ID] = ids
	orig := javaName(n.s.utf8[n.s.classNames[class]])
	if n.methods[orig] == nil {
		n.methods[orig] = map[string]string{}
	}
	ret, args := javaSignature(n.s.utf8[f.SignatureID])
	line := fmt.Sprintf("    %s %s(%s) -> %s", ret, n.s.utf8[f.MethodID], args, obf)
	n.methods[orig][line] = ""
}

// id is the fresh string id of a new name.
func (n *renamer) id(text string) uint64 {
	if id, ok := n.ids[text]; ok {
		return id
	}
	id := n.next
	n.next++
	n.ids[text] = id
	n.order = append(n.order, text)
	return id
}

// hash is a short keyed name for text.
func (n *renamer) hash(k *keyer, text string) string {
	return hex.EncodeToString(k.digest(domainName, []byte(text))[:6])
}

// member is the new name of a field ('f') or method ('m') name.
func (n *renamer) member(k *keyer, kind byte, nameID uint64) string {
	name := n.s.utf8[nameID]
	if strings.HasPrefix(name, "<") {
		return name // <init>, <clinit>
	}
	return string(kind) + n.hash(k, name)
}

// className is the new internal name of a class ("com/acme/Foo",
// "[Lcom/acme/Foo;"), the name itself for platform classes.
func (n *renamer) className(internal string) string {
	dims := len(internal) - len(strings.TrimLeft(internal, "["))
	elem := internal[dims:]
	if dims > 0 {
		if !strings.HasPrefix(elem, "L") || !strings.HasSuffix(elem, ";") {
			return internal // a primitive array
		}
		return internal[:dims] + "L" + n.className(elem[1:len(elem)-1]) + ";"
	}
	java := javaName(elem)
	if isPlatform(java) {
		return internal
	}
	return "redacted/C" + n.hash(n.k, java)
}

// signature renames the application classes of a method descriptor.
func (n *renamer) signature(sig string) string {
	var b strings.Builder
	for {
		l := strings.IndexByte(sig, 'L')
		semi := strings.IndexByte(sig[max(l, 0):], ';')
		if l < 0 || semi < 0 {
			b.WriteString(sig)
			return b.String()
		}
		b.WriteString(sig[:l+1])
		b.WriteString(n.className(sig[l+1 : l+semi]))
		sig = sig[l+semi:]
	}
}

// writeStrings writes the string records of the new names.
func (n *renamer) writeStrings(rw *rewriter) {
	for _, text := range n.order {
		start := rw.e.top(&hprof.Record{Tag: hprof.TagUTF8})
		rw.e.id(n.ids[text])
		rw.e.b = append(rw.e.b, text...)
		rw.e.finish(start)
	}
}

// utf8 says whether the string record id is still written.
func (n *renamer) utf8(id uint64, text []byte) ([]byte, bool) {
	return text, n.keepStr[id]
}

// rename points LOAD_CLASS and FRAME records at the new names.
func (n *renamer) rename(rec *hprof.Record) {
	switch rec.Tag {
	case hprof.TagLoadClass:
		if name, ok := n.classes[rec.LoadClass.ClassID]; ok {
			rec.LoadClass.NameID = n.ids[name]
		}
	case hprof.TagFrame:
		if ids, ok := n.frames[rec.Frame.ID]; ok {
			rec.Frame.MethodID, rec.Frame.SignatureID, rec.Frame.SourceID = ids[0], ids[1], ids[2]
		}
	}
}

// renameClass points the field names of a renamed class's CLASS_DUMP at
// the new names; k is the keyer of the goroutine that calls it.
func (n *renamer) renameClass(k *keyer, c *hprof.ClassDump) {
	if _, ok := n.classes[c.ID]; !ok {
		return
	}
	for i := range c.Fields {
		c.Fields[i].NameID = n.ids[n.member(k, 'f', c.Fields[i].NameID)]
	}
	for i := range c.Statics {
		c.Statics[i].NameID = n.ids[n.member(k, 'f', c.Statics[i].NameID)]
	}
}
