package redact

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestFileOut redacts into an existing file, which it replaces, and
// refuses to write over its input, named or through a symbolic link.
func TestFileOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.hprof")
	dump := smallDump(t, 8)
	if err := os.WriteFile(in, dump, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.hprof")
	if err := os.WriteFile(out, []byte("an older file"), 0o600); err != nil {
		t.Fatal(err)
	}
	opt := Options{Key: []byte("test key, sixteen bytes or more"), Keep: DefaultKeep}
	if _, err := File(in, out, opt); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(got, []byte("JAVA PROFILE 1.0.2\x00")) {
		t.Fatalf("out does not hold the redacted dump (%v): %.20q", err, got)
	}
	link := filepath.Join(dir, "link.hprof")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{in, link} {
		if _, err := File(in, o, opt); err == nil {
			t.Errorf("redact %s %s: no error", in, o)
		}
		if got, err := os.ReadFile(in); err != nil || !bytes.Equal(got, dump) {
			t.Fatalf("redact %s %s changed the input (%v)", in, o, err)
		}
	}
}
