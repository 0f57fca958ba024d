package model

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// anomalyCounts are the anomalies counted while the dump streams, with
// the offset of the first of a kind where it is kept; reportCounts
// records them.
type anomalyCounts struct {
	sizeMismatch      int64 // instances whose bytes miss their class's field sizes
	sizeMismatchFirst int64
	duplicateClasses  int64
	nullClassDumps    int64 // CLASS_DUMPs of class id 0
	nullClassFirst    int64
}

// anomaly records an anomaly first met at off, a line number when the
// source is line-oriented (-1: not tied to a place).
func (b *builder) anomaly(kind string, n int64, off int64, format string, args ...any) {
	a := Anomaly{Kind: kind, Count: n, Offset: off, Detail: fmt.Sprintf(format, args...)}
	if b.traits.Lines && off >= 0 {
		a.Offset, a.Line = -1, off
	}
	b.h.Anomalies = append(b.h.Anomalies, a)
}

// reportCounts records the anomalies counted while the dump streamed, and
// the object arrays the hprof agent may have cut short.
func (b *builder) reportCounts() {
	h := b.h
	if b.duplicateClasses > 0 {
		b.anomaly("duplicate-class", b.duplicateClasses, -1, "CLASS_DUMP records repeated for the same class id")
	}
	if b.agent {
		var arrays int64
		for i := range h.Classes {
			if h.Classes[i].Elem == TypeObject {
				arrays += h.Classes[i].Instances
			}
		}
		if arrays > 0 {
			b.anomaly("agent-array-lengths", arrays, -1, "the hprof agent writes an object array only up to its last non-null element, "+
				"with that count as its length: these object arrays may be longer, and larger, in the JVM")
		}
	}
	if b.nullClassDumps > 0 {
		b.anomaly("null-class-id", b.nullClassDumps, b.nullClassFirst, "CLASS_DUMP records of class id 0, the null reference, skipped")
	}
	if b.sizeMismatch > 0 {
		b.anomaly("instance-size-mismatch", b.sizeMismatch, b.sizeMismatchFirst, "INSTANCE_DUMP field bytes differ from the sum of the class's field sizes")
	}
}

// noRecord is the error of a dump in which nothing could be decoded after
// the header (an empty heap shown for it would be a lie): it says what was
// found there instead, from the reader's first warning and its error.
func (b *builder) noRecord(readErr error) error {
	var found []string
	if ws := b.r.Warnings(); len(ws) > 0 {
		found = append(found, fmt.Sprintf("offset %d: %s", ws[0].Offset, ws[0].Msg))
	}
	var fe *hprof.FormatError
	switch {
	case errors.As(readErr, &fe):
		found = append(found, fmt.Sprintf("offset %d: %s", fe.Offset, fe.Msg))
	case readErr != nil:
		found = append(found, readErr.Error())
	case len(found) == 0:
		found = append(found, fmt.Sprintf("offset %d: the file ends there", b.r.Offset()))
	}
	return fmt.Errorf("%s: no record could be decoded after the header: %s", b.h.Source.File, strings.Join(found, "; then "))
}

// truncated records the anomaly of a dump cut short: where the reader met
// the cut, what it found there, and how much was read before.
func (b *builder) truncated(err error) {
	where, at := ": "+err.Error(), int64(-1)
	unit, read := "offset", fmt.Sprintf("%d bytes", b.h.Source.Bytes)
	if b.traits.Lines {
		unit, read = "line", fmt.Sprintf("%d lines (%d bytes)", b.h.Source.Lines, b.h.Source.Bytes)
	}
	var fe *hprof.FormatError
	if errors.As(err, &fe) {
		where, at = fmt.Sprintf(" at %s %d: %s", unit, fe.Offset, fe.Msg), fe.Offset
	}
	b.anomaly("truncated", 1, at, "the dump is truncated%s; %s were read before the cut", where, read)
}

// reportUndumpedClasses flags classes that a LOAD_CLASS record announces
// but no CLASS_DUMP describes (and no UNLOAD_CLASS retired): their class
// objects are in the JVM's heap but not in the dump, so the JVM's own
// histogram counts java.lang.Class objects that this one cannot.
func (b *builder) reportUndumpedClasses() {
	var names []string
	for serial, id := range b.classSerial {
		if b.unloaded[serial] {
			continue
		}
		if c, ok := b.h.classByID[id]; ok && b.infos[c].dumped {
			continue
		}
		names = append(names, JavaClassName(b.name(b.classNameID[id])))
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	shown := names
	if len(shown) > 10 {
		shown = shown[:10]
	}
	b.anomaly("class-not-dumped", int64(len(names)), -1, "classes the dump names (LOAD_CLASS, or an ASCII OBJ line) but never dumps (no CLASS_DUMP or CLS line), so their class objects are missing: %s", strings.Join(shown, ", "))
}

// archivedRootsNote is the Kind of the note on the references a HotSpot
// dump's CDS archived-heap roots array holds to objects the dump leaves
// out (docs/hprof.md#cds-archived-heap).
const archivedRootsNote = "cds-archived-object-omitted"

// reportDangling records the references to objects that are not in the
// dump, held by holders. HotSpot maps the CDS archive's heap objects into
// the heap (G1, -Xshare:auto, the default) and keeps them alive from one
// Object[], the archived heap's roots, held by a JNI global handle. Its
// elements include the java.lang.Class objects of every archived class,
// loaded in this run or not, and the heap dumper writes the class object
// only of a loaded class: the others' references dangle in every such
// dump. Those become a note; every other dangling reference is an
// anomaly.
func (b *builder) reportDangling(holders []danglingHolder) {
	globals := map[uint64]bool{}
	for _, r := range b.roots {
		if r.kind == RootJNIGlobal {
			globals[r.id] = true
		}
	}
	var routine, other int64
	var firstRoutine, firstOther uint64
	for _, d := range holders {
		c := b.h.classOf[d.object]
		if b.h.Source.Producer == "hotspot" && globals[b.h.ObjectID(d.object)] && c != NoClass && b.h.Classes[c].Name == "java.lang.Object[]" {
			routine += d.refs
			firstRoutine = cmp.Or(firstRoutine, d.first)
			continue
		}
		other += d.refs
		firstOther = cmp.Or(firstOther, d.first)
	}
	if other > 0 {
		b.anomaly("dangling-reference", other, -1, "references to objects that are not in the dump, e.g. 0x%x", firstOther)
	}
	if routine > 0 {
		b.h.Notes = append(b.h.Notes, Anomaly{Kind: archivedRootsNote, Count: routine, Offset: -1, Detail: fmt.Sprintf(
			"references from the CDS archived heap's roots (an Object[] held by a JNI global) to archived objects the JVM "+
				"does not dump, such as the class objects of archived classes this run never loaded, e.g. 0x%x", firstRoutine)})
	}
}
