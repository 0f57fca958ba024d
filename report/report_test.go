package report

import (
	"io"
	"strings"
	"testing"
)

// recorder is a Document that writes which of its methods ran.
type recorder struct{}

func (recorder) Table(w io.Writer, o Options) error {
	_, err := io.WriteString(w, "table "+string(o.Format))
	return err
}

func (recorder) CSV(w io.Writer, _ Options) error {
	_, err := io.WriteString(w, "csv")
	return err
}

func (recorder) JSON(w io.Writer) error {
	_, err := io.WriteString(w, "json")
	return err
}

// profileRecorder is a recorder that is also written as a profile.proto.
type profileRecorder struct{ recorder }

func (profileRecorder) Pprof(w io.Writer) error {
	_, err := io.WriteString(w, "pprof")
	return err
}

// TestGenerate checks the dispatch: each format to its method, pprof
// only to documents that have it.
func TestGenerate(t *testing.T) {
	for _, c := range []struct {
		d    Document
		f    Format
		want string
	}{
		{recorder{}, Table, "table table"},
		{recorder{}, JSON, "json"},
		{recorder{}, CSV, "csv"},
		{profileRecorder{}, Pprof, "pprof"},
		{profileRecorder{}, JSON, "json"},
	} {
		var b strings.Builder
		if err := Generate(&b, c.d, Options{Format: c.f}); err != nil || b.String() != c.want {
			t.Errorf("%T as %s: %q (%v), want %q", c.d, c.f, b.String(), err, c.want)
		}
	}
	var b strings.Builder
	if err := Generate(&b, recorder{}, Options{Format: Pprof}); err == nil || b.Len() != 0 {
		t.Errorf("pprof of a document without a profile: %q, %v; want an error and nothing written", b.String(), err)
	}
}

// TestParseFormat: the three formats everywhere, pprof only where a
// command offers it.
func TestParseFormat(t *testing.T) {
	for _, s := range []string{"table", "json", "csv"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("pprof"); err == nil || !strings.Contains(err.Error(), "expected table, json or csv") {
		t.Errorf("pprof where a command does not offer it: %v, want the unknown format error", err)
	}
	if f, err := ParseFormat("pprof", Pprof); err != nil || f != Pprof {
		t.Errorf("pprof where a command offers it: %q, %v", f, err)
	}
	if _, err := ParseFormat("xml", Pprof); err == nil {
		t.Error("xml accepted")
	}
}
