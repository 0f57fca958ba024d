package redact

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/hprof/hproftest"
)

// smallDump is a fuzz seed of a few kilobytes with every kind of record
// redact treats apart: strings used and unused, classes with replaced and
// kept fields, statics and a constant, a thread's START_THREAD names, a
// frame and a trace, instances, a String, object arrays and primitive
// arrays (short, long, uniform, of text). The realistic dumps are ten
// times bigger, and the fuzzer spends up to a minute minimizing each
// input it finds from one.
func smallDump(t testing.TB, idSize int) []byte {
	var buf bytes.Buffer
	w := hproftest.New(&buf, hproftest.Options{IDSize: idSize})
	w.UTF8("an unused string literal")
	j := w.DeclareJDK()
	app := w.DeclareClass(hproftest.ClassSpec{Name: "com/acme/Account", Super: j.Object,
		Fields:    []hproftest.Field{{Name: "owner", Type: hproftest.TypeObject}, {Name: "balance", Type: hproftest.TypeLong}, {Name: "pin", Type: hproftest.TypeChar}, {Name: "open", Type: hproftest.TypeBoolean}},
		Statics:   []hproftest.Static{{Name: "LIMIT", Value: hproftest.Int(1000)}, {Name: "RATE", Value: hproftest.Double(0.25)}},
		Constants: []hproftest.ConstantEntry{{Index: 1, Value: hproftest.Long(0x5EC2E7)}}})
	frame := w.StackFrame("transfer", "(Lcom/acme/Account;J)V", "Account.java", app.Serial, 42)
	trace := w.StackTrace(1, frame)
	w.StartThread(hproftest.StartThread{ThreadSerial: 1, ThreadID: 0x1000, TraceSerial: trace,
		NameID: w.UTF8("worker-secret"), GroupNameID: w.UTF8("main"), ParentGroupNameID: w.UTF8("system")})
	w.BeginHeapDump()
	for _, c := range append(j.Classes(), app) {
		w.DumpClass(c)
	}
	owner, _ := j.NewString("Ada Lovelace")
	acct := w.Instance(app, hproftest.Ref(owner), hproftest.Long(1234567), hproftest.Char('7'), hproftest.Boolean(true))
	w.Instance(j.ArrayList, hproftest.Ref(w.ObjectArray(j.ObjectArray, acct, owner)), hproftest.Int(2), hproftest.Int(5))
	w.PrimArray(hproftest.TypeChar, hproftest.UTF16("a char[] longer than sixteen bytes"))
	w.PrimArray(hproftest.TypeInt, hproftest.Ints(7, 7, 7, 7, 7, 7))
	w.PrimArray(hproftest.TypeLong, hproftest.Longs(1, 2))
	w.Root(hproftest.Root{Kind: hproftest.RootJavaFrame, ID: acct, ThreadSerial: 1, FrameDepth: 0})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzRedact redacts arbitrary input: it fails with an error or writes a
// dump that reads back whole, with the same header; the direct path
// writes the streaming path's bytes, fails where it fails, or leaves the
// input to it.
func FuzzRedact(f *testing.F) {
	for _, idSize := range []int{4, 8} {
		f.Add(smallDump(f, idSize))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := Options{Key: []byte("fuzz key, 16+ bytes"), Keep: DefaultKeep, Names: len(data)%2 == 0}
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		var out bytes.Buffer
		_, err := Redact(open, "fuzz", &out, opt)
		got, _, derr := direct(data, opt)
		switch {
		case errors.Is(derr, errNotDirect):
		case err != nil && derr == nil:
			t.Fatalf("the streaming path fails (%v), the direct path writes a dump", err)
		case err == nil && derr != nil:
			t.Fatalf("the direct path fails: %v", derr)
		case err == nil && !bytes.Equal(got, out.Bytes()):
			t.Fatal("the direct path wrote another dump than the streaming path")
		}
		if err != nil {
			return
		}
		r, err := hprof.NewReader(bytes.NewReader(out.Bytes()), hprof.Options{Name: "out"})
		if err != nil {
			t.Fatalf("the redacted dump has no valid header: %v", err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			t.Fatalf("the redacted dump does not read back: %v", err)
		}
	})
}
