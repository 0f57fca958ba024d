package hprofascii_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprofascii"
)

// fixtureDir holds the synthetic files written by testdata/ascii/gen.sh.
var fixtureDir = filepath.Join("..", "..", "testdata", "ascii")

// scanned is everything a Reader delivered from one input.
type scanned struct {
	header   hprofascii.Header
	records  []string // describe of each record
	kinds    []hprofascii.Kind
	lines    []int64
	err      error // from NewReader or Err
	warnings []hprofascii.Warning
	count    int // WarningCount
}

// scan reads every record of data, checking the invariants every input
// must keep: records in strictly increasing line order, errors of type
// *FormatError only.
func scan(t testing.TB, data []byte, opt hprofascii.Options) scanned {
	t.Helper()
	return scanFrom(t, bytes.NewReader(data), opt)
}

// scanFrom is scan on any source.
func scanFrom(t testing.TB, src io.Reader, opt hprofascii.Options) scanned {
	t.Helper()
	var s scanned
	r, err := hprofascii.NewReader(src, opt)
	if err != nil {
		checkFormatError(t, err)
		s.err = err
		return s
	}
	s.header = r.Header()
	last := int64(0)
	for r.Next() {
		rec := r.Record()
		if rec.Line <= last || rec.Line > r.Line() {
			t.Fatalf("record %s at line %d after one at line %d, %d lines read", rec.Kind, rec.Line, last, r.Line())
		}
		last = rec.Line
		s.records = append(s.records, describe(rec))
		s.kinds = append(s.kinds, rec.Kind)
		s.lines = append(s.lines, rec.Line)
	}
	s.err = r.Err()
	checkFormatError(t, s.err)
	s.warnings, s.count = r.Warnings(), r.WarningCount()
	if r.Next() {
		t.Fatal("Next returned true after returning false")
	}
	return s
}

func checkFormatError(t testing.TB, err error) {
	t.Helper()
	var fe *hprofascii.FormatError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is no FormatError", err, err)
	}
}

// readFile returns a file's bytes.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// describe renders a record as one line of text, every field included.
func describe(rec *hprofascii.Record) string {
	k := rec.Kind
	switch k {
	case hprofascii.KindThreadStart:
		v := rec.ThreadStart
		return fmt.Sprintf("%s obj=%x serial=%d name=%q group=%q", k, v.ObjectID, v.Serial, v.Name, v.Group)
	case hprofascii.KindThreadEnd:
		return fmt.Sprintf("%s serial=%d", k, rec.ThreadEnd)
	case hprofascii.KindTrace:
		v := rec.Trace
		var frames []string
		for _, f := range v.Frames {
			frames = append(frames, fmt.Sprintf("%s|%s|%s|%d", f.Class, f.Method, f.Source, f.Line))
		}
		return fmt.Sprintf("%s %d thread=%d phase=%q frames=[%s]", k, v.Serial, v.Thread, v.Phase, strings.Join(frames, " "))
	case hprofascii.KindSitesBegin:
		return fmt.Sprintf("%s #%d by=%q %s", k, rec.Dump, rec.Sites.OrderedBy, stamp(rec.Sites.Time.String()))
	case hprofascii.KindSite:
		v := rec.Site
		return fmt.Sprintf("%s #%d %d %.2f %.2f %d %d %d %d %d %s", k, rec.Dump, v.Rank, v.Self, v.Accum,
			v.LiveBytes, v.LiveObjects, v.AllocBytes, v.AllocObjects, v.Trace, v.Class)
	case hprofascii.KindCPUBegin:
		v := rec.CPU
		return fmt.Sprintf("%s #%d times=%t total=%d %s", k, rec.Dump, v.Times, v.Total, stamp(v.Time.String()))
	case hprofascii.KindCPURow:
		v := rec.CPURow
		return fmt.Sprintf("%s #%d %d %.2f %.2f %d %d %s|%s", k, rec.Dump, v.Rank, v.Self, v.Accum, v.Count, v.Trace, v.Class, v.Method)
	case hprofascii.KindOldProfRow:
		v := rec.OldProfRow
		return fmt.Sprintf("%s #%d %d %s|%s|%s %s|%s|%s %d", k, rec.Dump, v.Count, v.Callee.Class, v.Callee.Name, v.Callee.Signature,
			v.Caller.Class, v.Caller.Name, v.Caller.Signature, v.Time)
	case hprofascii.KindMonitorTimeBegin:
		return fmt.Sprintf("%s #%d total=%d %s", k, rec.Dump, rec.MonitorTime.TotalMS, stamp(rec.MonitorTime.Time.String()))
	case hprofascii.KindMonitorTimeRow:
		v := rec.MonitorRow
		return fmt.Sprintf("%s #%d %d %.2f %.2f %d %d %s", k, rec.Dump, v.Rank, v.Self, v.Accum, v.Count, v.Trace, monitor(v.Monitor))
	case hprofascii.KindMonitorEvent:
		v := rec.Event
		return fmt.Sprintf("%s %d %s timeout=%d waited=%d thread=%d", k, v.Kind, monitor(v.Monitor), v.Timeout, v.TimeWaited, v.Thread)
	case hprofascii.KindMonitorDumpThread:
		v := rec.MonitorThread
		return fmt.Sprintf("%s #%d %d trace=%d S=%t intr=%t native=%t state=%q", k, rec.Dump, v.Thread, v.Trace,
			v.Suspended, v.Interrupted, v.InNative, v.State)
	case hprofascii.KindMonitorDumpMonitor:
		v := rec.Monitor
		return fmt.Sprintf("%s #%d %s owned=%t owner=%d entries=%d enter=%v notify=%v", k, rec.Dump, monitor(v.Monitor),
			v.Owned, v.Owner, v.EntryCount, v.WaitingToEnter, v.WaitingToBeNotified)
	case hprofascii.KindHeapDumpBegin:
		v := rec.HeapDump
		return fmt.Sprintf("%s #%d objects=%d bytes=%d %s", k, rec.Dump, v.Objects, v.Bytes, stamp(v.Time.String()))
	case hprofascii.KindRoot:
		v := rec.Root
		return fmt.Sprintf("%s #%d %s %x jni=%x thread=%d trace=%d frame=%d class=%q", k, rec.Dump, v.Kind, v.ID, v.JNIRef,
			v.ThreadSerial, v.TraceSerial, v.FrameDepth, v.ClassName)
	case hprofascii.KindClass:
		v := rec.Class
		return fmt.Sprintf("%s #%d %x %s trace=%d super=%x loader=%x signers=%x domain=%x statics=%s constants=%v", k, rec.Dump,
			v.ID, v.Name, v.TraceSerial, v.SuperID, v.LoaderID, v.SignersID, v.ProtectionDomainID, references(v.Statics), constants(v.Constants))
	case hprofascii.KindObject, hprofascii.KindObjectFields:
		v := rec.Object
		return fmt.Sprintf("%s #%d %x sz=%d trace=%d %s@%x fields=%s", k, rec.Dump, v.ID, v.Size, v.TraceSerial,
			v.ClassName, v.ClassID, references(v.Fields))
	case hprofascii.KindArray, hprofascii.KindArrayElements:
		v := rec.Array
		return fmt.Sprintf("%s #%d %x sz=%d trace=%d n=%d %s %s@%x ofElement=%t elements=%v", k, rec.Dump, v.ID, v.Size,
			v.TraceSerial, v.Length, v.ElemType, v.TypeName, v.ClassID, v.OfElement, elements(v.Elements))
	}
	return fmt.Sprintf("%s #%d", k, rec.Dump)
}

// stamp shortens a time's text to its date and clock.
func stamp(s string) string { return strings.TrimSuffix(s, " +0000 UTC") }

func monitor(m hprofascii.MonitorRef) string {
	if m.Raw {
		return fmt.Sprintf("raw %q(%x)", m.Name, m.ID)
	}
	return fmt.Sprintf("%s(%x)", m.Class, m.ID)
}

func references(refs []hprofascii.Reference) string {
	var parts []string
	for _, f := range refs {
		parts = append(parts, fmt.Sprintf("%s=%x", f.Name, f.ID))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func constants(cs []hprofascii.Constant) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%d=%x", c.Index, c.ID))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func elements(es []hprofascii.Element) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%d=%x", e.Index, e.ID))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// crlf converts line ends to CRLF.
func crlf(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")) }
