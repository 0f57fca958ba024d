package session

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/parser/input"
)

// fixture is the HeapShapes dump of testdata/jvm (EXPECTED.md there).
var fixture = filepath.Join("..", "..", "testdata", "jvm", "jdk17-default.hprof.gz")

// openFixture opens the fixture with its index in a directory of the
// test's own.
func openFixture(t *testing.T, o Options) *Session {
	t.Helper()
	o.Dump, o.IndexDir = -1, t.TempDir()
	s, err := Open(fixture, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// TestOpenTellsFormatAndKeepsProducts checks that Open tells a binary
// dump and that the dominator tree and the path tree are made once.
func TestOpenTellsFormatAndKeepsProducts(t *testing.T) {
	s := openFixture(t, Options{})
	if s.Format().Kind != input.KindHPROF || s.Name() != fixture {
		t.Errorf("format %v, name %q", s.Format().Kind, s.Name())
	}
	r1, err := s.Retention()
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := s.Retention()
	p1, _ := s.StrongPaths()
	p2, _ := s.StrongPaths()
	if r1 != r2 || p1 != p2 || p1 == nil {
		t.Error("the dominator tree or the path tree was made twice")
	}
	h, err := s.Histogram(heap.HistoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range h.Rows {
		if row.Class == "fixture.Payload" && row.Instances != 100 {
			t.Errorf("fixture.Payload: %d instances, the program made 100", row.Instances)
		}
	}
}

// TestOptionErrors checks the options every front end refuses alike,
// named as a flag by Error and as a query parameter by Param.
func TestOptionErrors(t *testing.T) {
	s := openFixture(t, Options{NoIndex: true})
	for _, tc := range []struct {
		err         error
		flag, param string
	}{
		{func() error { _, err := ParseThreshold("0"); return err }(), `--threshold "0": want a percentage from 0.01 to 100`, `threshold="0": want`},
		{CheckCPUBy("frame"), `--by "frame": want trace or method`, `by="frame"`},
		{func() error { _, err := s.Histogram(heap.HistoOptions{Sort: "size"}); return err }(), `--sort "size": want bytes, count or name`, `sort="size"`},
		{func() error { _, err := s.DuplicateStrings(heap.StringOptions{MinCount: 1}); return err }(), "--min-count 1: want 2 or more", "min-count=1"},
		{func() error { _, err := s.Leaks(LeakOptions{Threshold: 0.1, Classes: -1}); return err }(), "--classes -1: want 0 or more", "classes=-1"},
	} {
		var oe *OptionError
		if !errors.As(tc.err, &oe) || tc.err.Error() != tc.flag || !strings.HasPrefix(oe.Param(), tc.param) {
			t.Errorf("%v: want %q, named %q as a parameter", tc.err, tc.flag, tc.param)
		}
	}
	if _, err := s.Histogram(heap.HistoOptions{Sort: "native"}); err != nil {
		t.Errorf("sort native: %v", err)
	}
	if v, err := ParseThreshold("10%"); v != 0.1 || err != nil {
		t.Errorf("10%%: %v, %v; want a share of 0.1", v, err)
	}
}

// TestLookup checks that an id the dump lacks is ErrNoSuchObject.
func TestLookup(t *testing.T) {
	s := openFixture(t, Options{})
	if _, err := s.Lookup(1); !errors.Is(err, ErrNoSuchObject) {
		t.Errorf("Lookup(1): %v, want ErrNoSuchObject", err)
	}
}
