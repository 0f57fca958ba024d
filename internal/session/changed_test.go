package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestUnchanged: a dump is unchanged while its content is, even touched;
// rewritten with another dump's bytes it has changed, and stays so.
func TestUnchanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.hprof.gz")
	write := func(from string) {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "jvm", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("jdk17-default.hprof.gz")
	s, err := Open(path, Options{Dump: -1, IndexDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Unchanged(); err != nil {
		t.Fatalf("first call: %v", err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if err := s.Unchanged(); err != nil {
		t.Errorf("touched: %v, want unchanged", err)
	}
	write("jdk17-inspect-before.hprof.gz")
	for range 2 {
		if err := s.Unchanged(); !errors.Is(err, ErrDumpChanged) {
			t.Errorf("rewritten: %v, want ErrDumpChanged", err)
		}
	}
}
