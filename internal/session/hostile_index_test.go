package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/model/store/storetest"
)

// fixtureIndex builds the fixture's index at a path of the test's own and
// returns the path and the index's bytes.
func fixtureIndex(t testing.TB) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture"+store.Suffix)
	s, err := Open(fixture, Options{Dump: -1, Index: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.BuildIndex(false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// questions asks s what the crafted cases touch: the histogram (classes
// of objects), the dominators (the dominator tree, retained sizes), the
// retainers of a class (the shortest path tree, references) and the leak
// suspects (all of them).
func questions(s *Session) (any, error) {
	h, err := s.Histogram(heap.HistoOptions{})
	if err != nil {
		return nil, err
	}
	d, err := s.Dominators(heap.DominatorOptions{Top: 10, Children: 3})
	if err != nil {
		return nil, err
	}
	r, err := s.Retainers(graph.RetainerOptions{Class: regexp.MustCompile(`^fixture\.Payload$`), Paths: 3})
	if err != nil {
		return nil, err
	}
	l, err := s.Leaks(LeakOptions{Threshold: 0.01, Classes: 3})
	if err != nil {
		return nil, err
	}
	return []any{h, d, r, l.Report}, nil
}

// fill sets every 4-byte element of b to v.
func fill(v uint32) func(b []byte) {
	return func(b []byte) {
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], v)
		}
	}
}

// TestCraftedSections: sections whose checksums are valid but whose
// content cannot be right are refused. Ids out of range are found when
// the index is opened (the session then rebuilds it); parent chains that
// never end and counts that do not add up when the tree is first used
// (the session then computes it again). Either way it says why and
// answers as from a sound index: no panic, no endless walk.
func TestCraftedSections(t *testing.T) {
	path, good := fixtureIndex(t)
	want, err := func() (any, error) {
		s, err := Open(fixture, Options{Dump: -1, Index: path})
		if err != nil {
			return nil, err
		}
		defer s.Close()
		return questions(s)
	}()
	if err != nil {
		t.Fatal(err)
	}
	twoCycle := func(b []byte) { // objects 5 and 6 each other's parent
		binary.LittleEndian.PutUint32(b[5*4:], 6)
		binary.LittleEndian.PutUint32(b[6*4:], 5)
	}
	cases := []struct {
		section string
		change  func([]byte)
		atOpen  bool
		says    string
	}{
		{"heap.refs", fill(0xFFFFFFFF), true, "element 0 is 4294967295, not below 14785"},
		{"heap.class-of", fill(0xFFFFFFFF), true, "element 0 is 65535, not below 663"},
		{"heap.ref-start.base", func(b []byte) { binary.LittleEndian.PutUint64(b[8:], 0) }, true, "reference start 64 is 0, after"},
		{"heap.ref-start.start", fill(0xFFFFFFFF), true, "block starts for 14786 values"},
		{"heap.ids.start", func(b []byte) { binary.LittleEndian.PutUint64(b[8:], 65) }, true, "block 0 starts at word 0, the next at 65"},
		{"retention.idom", fill(0x7FFFFFFF), true, "element 0 is 2147483647, not below 14785"},
		{"paths.strong-parent.other", fill(0xFFFFFFF0), true, "not below 14785"},
		{"paths.strong-parent.differs", fill(0xFFFFFFFF), true, "parents apart from the dominators do not fit"},
		{"retention.idom", fill(0), false, "object 0's dominator 0 retains"},
		{"retention.idom", twoCycle, false, "object 5's dominator 6 retains"},
		{"retention.retained-count", fill(0), false, "retains no object"},
	}
	for _, c := range cases {
		data := bytes.Clone(good)
		sec := storetest.Section(data, c.section)
		if sec == nil {
			t.Fatalf("the index has no section %s", c.section)
		}
		c.change(sec)
		storetest.Reseal(data)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		x, _, _, err := openFresh(fixture, indexOptions{Path: path})
		took := time.Since(start)
		if x != nil {
			x.close()
		}
		if c.atOpen && (!errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), c.says)) {
			t.Errorf("%s crafted: %v; want ErrCorrupt saying %q", c.section, err, c.says)
			continue
		}
		if !c.atOpen && err != nil {
			t.Errorf("%s crafted: %v; want it opened, its tree checked when used", c.section, err)
			continue
		}
		var notes bytes.Buffer
		s, err := Open(fixture, Options{Dump: -1, Index: path, Notes: &notes})
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		got, err := questions(s)
		answered := time.Since(start)
		s.Close()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s crafted: the session's answers: %v; equal to a sound index's: %v", c.section, err, reflect.DeepEqual(got, want))
		}
		said := notes.String()
		if c.atOpen && !strings.Contains(said, "the index was not used") || !c.atOpen && !strings.Contains(said, "it is computed again") || !strings.Contains(said, c.says) {
			t.Errorf("%s crafted: the session said %q; want why it rebuilt, with %q", c.section, said, c.says)
		}
		t.Logf("%s crafted: open %v, questions %v: %s", c.section, took, answered, strings.TrimSpace(said))
	}
}

// FuzzIndexSections writes fuzzed bytes over part of one section of a
// sound index, seals it again (every checksum valid) and asks questions
// of it: the index is refused or answers; nothing panics, hangs or runs
// out of memory.
func FuzzIndexSections(f *testing.F) {
	path, good := fixtureIndex(f)
	names := storetest.Names(good)
	for i := range names {
		f.Add(uint8(i), uint32(0), bytes.Repeat([]byte{0xFF}, 64))
		f.Add(uint8(i), uint32(8), make([]byte, 64))
	}
	f.Fuzz(func(t *testing.T, which uint8, at uint32, patch []byte) {
		data := bytes.Clone(good)
		sec := storetest.Section(data, names[int(which)%len(names)])
		if len(sec) == 0 {
			return
		}
		copy(sec[int(at)%len(sec):], patch)
		storetest.Reseal(data)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		x, _, _, err := openFresh(fixture, indexOptions{Path: path})
		if err != nil {
			return // refused at open: what a crafted index should meet
		}
		x.close()
		// It passed the checks at open: the session opens it as it is.
		s, err := Open(fixture, Options{Dump: -1, Index: path})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			questions(s)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("questions on a crafted index still run after 20 s")
		}
	})
}
