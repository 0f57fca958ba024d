package redact

import (
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// bigArray is the size in bytes above which a primitive array is not held
// in memory: its digest is taken in the first pass and its replacement
// streamed in the second.
const bigArray = 4 << 20

// classInfo is what the first pass keeps of one CLASS_DUMP.
type classInfo struct {
	super   uint64
	fields  []hprof.Field
	statics []hprof.Static
}

// bigDigest is what the first pass learned of one big array.
type bigDigest struct {
	sum     [16]byte
	uniform bool
	first   [8]byte // the first element, for a uniform array
	elem    [8]byte // its replacement
}

// scan is what the first pass learns: names, class layouts, which
// strings name threads and heaps, and the digests of the big arrays.
type scan struct {
	header     hprof.Header
	utf8       map[uint64]string
	classNames map[uint64]uint64 // class object id -> name string id
	classes    map[uint64]*classInfo
	threadStr  map[uint64]bool // string ids of thread and thread group names
	big        map[int64]*bigDigest

	// For renaming: class serials, the frames, the heap names and the
	// largest string id.
	serials   map[uint32]uint64 // class serial -> class object id
	frames    []hprof.Frame
	heapNames map[uint64]bool
	maxStr    uint64
}

// newScan is an empty scan of a dump with header h.
func newScan(h hprof.Header) *scan {
	return &scan{header: h, utf8: map[uint64]string{}, classNames: map[uint64]uint64{},
		classes: map[uint64]*classInfo{}, threadStr: map[uint64]bool{}, big: map[int64]*bigDigest{},
		serials: map[uint32]uint64{}, heapNames: map[uint64]bool{}}
}

// firstPass reads the dump once, payloads skipped except those of big
// arrays.
func firstPass(r *hprof.Reader, k *keyer) (*scan, error) {
	s := newScan(r.Header())
	for r.Next() {
		if err := s.observe(r, k, r.Record().Offset); err != nil {
			return nil, err
		}
	}
	delete(s.threadStr, 0)
	return s, r.Err()
}

// observe learns what the first pass keeps of r's current record, which
// lies at offset off of the dump.
func (s *scan) observe(r *hprof.Reader, k *keyer, off int64) error {
	rec := r.Record()
	switch {
	case rec.Tag == hprof.TagUTF8:
		s.utf8[rec.UTF8.ID] = string(rec.UTF8.Text)
		s.maxStr = max(s.maxStr, rec.UTF8.ID)
	case rec.Tag == hprof.TagLoadClass:
		s.classNames[rec.LoadClass.ClassID] = rec.LoadClass.NameID
		s.serials[rec.LoadClass.Serial] = rec.LoadClass.ClassID
	case rec.Tag == hprof.TagFrame:
		s.frames = append(s.frames, rec.Frame)
	case rec.Sub == hprof.SubHeapDumpInfo:
		s.heapNames[rec.HeapInfo.NameID] = true
	case rec.Tag == hprof.TagStartThread:
		st := rec.StartThread
		s.threadStr[st.NameID], s.threadStr[st.GroupNameID], s.threadStr[st.ParentGroupNameID] = true, true, true
	case rec.Sub == hprof.SubClassDump:
		c := rec.Class
		s.classes[c.ID] = &classInfo{super: c.SuperID, fields: append([]hprof.Field(nil), c.Fields...),
			statics: append([]hprof.Static(nil), c.Statics...)}
	case rec.Sub == hprof.SubPrimArrayDump && r.PayloadSize() > bigArray:
		t, n := rec.PrimArray.ElemType, r.PayloadSize()
		d, err := digestBig(r, k, t)
		if err != nil {
			return err
		}
		if d.uniform {
			d.elem = d.first
			k.permuteClass(domainUniform, t, d.elem[:t.Size(8)], uniformClass(t, n))
		}
		s.big[off] = d
	}
	return nil
}

// digestBig takes the digest of the current big array and whether its
// elements are all equal, reading its payload in pieces.
func digestBig(r *hprof.Reader, k *keyer, t hprof.Type) (*bigDigest, error) {
	es := t.Size(r.IDSize())
	d := &bigDigest{uniform: true}
	k.startDigest(t, r.PayloadSize())
	seen := false
	err := r.PayloadChunks(func(chunk []byte) error {
		k.sip.write(chunk)
		if !seen {
			copy(d.first[:es], chunk[:es])
			seen = true
		}
		for p := 0; d.uniform && p < len(chunk); p += es {
			d.uniform = string(chunk[p:p+es]) == string(d.first[:es])
		}
		return nil
	})
	k.sip.sum(d.sum[:0])
	return d, err
}

// className is the Java name of a class ("java.lang.String"), "" when the
// dump does not name it.
func (s *scan) className(id uint64) string {
	n, ok := s.classNames[id]
	if !ok {
		return ""
	}
	return javaName(s.utf8[n])
}

// javaName turns a JVM internal class name into its Java name, as the
// model names classes: a hidden class's "+0x" suffix becomes "/0x".
func javaName(internal string) string {
	if strings.Contains(internal, ".") {
		return internal
	}
	name := strings.ReplaceAll(internal, "/", ".")
	if i := strings.LastIndex(name, "+0x"); i >= 0 {
		name = name[:i] + "/" + name[i+1:]
	}
	return name
}

// referenced is the set of string ids some record refers to as a name;
// HotSpot also writes string records of symbols no record refers to, the
// texts of string literals among them.
func (s *scan) referenced() map[uint64]bool {
	ref := map[uint64]bool{}
	for _, id := range s.classNames {
		ref[id] = true
	}
	for _, c := range s.classes {
		for _, f := range c.fields {
			ref[f.NameID] = true
		}
		for _, st := range c.statics {
			ref[st.NameID] = true
		}
	}
	for _, f := range s.frames {
		ref[f.MethodID], ref[f.SignatureID], ref[f.SourceID] = true, true, true
	}
	for id := range s.threadStr {
		ref[id] = true
	}
	for id := range s.heapNames {
		ref[id] = true
	}
	return ref
}
