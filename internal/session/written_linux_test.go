package session

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model/store/storetest"
	"github.com/hprofctl/hprofctl/report"
)

// TestBuiltIndexIsWritten: the index a session builds opens as written
// (store.Index.Written: taken without its checks) while it is unchanged,
// and is checked again once rewritten, even with the same bytes; the
// answers are the same either way.
func TestBuiltIndexIsWritten(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path, data := fixtureIndex(t)
	ask := func() (bool, any) {
		t.Helper()
		x, _, _, err := openFresh(fixture, indexOptions{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		written := x.ix.Written()
		x.close()
		s, err := Open(fixture, Options{Dump: -1, Index: path})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, err := questions(s)
		if err != nil {
			t.Fatal(err)
		}
		return written, got
	}
	written, fromBuilt := ask()
	if !written {
		t.Error("the index the session built is not Written")
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	written, fromRewritten := ask()
	if written {
		t.Error("the index rewritten with its own bytes is still Written")
	}
	if !reflect.DeepEqual(fromBuilt, fromRewritten) {
		t.Error("the answers from the index as built and as rewritten differ")
	}
}

// TestIndexChecksWhatItDidNotBuild: hprofctl index on a fresh index it did
// not build (here a copy of the one it built, a file of its own) checks it
// whole and enters it into the ledger, so that it then opens as written;
// one whose sections or trees are unsound is built again, saying why:
// a damaged kept answer (found as it opens) or a dominator tree whose
// counts do not add up (checked otherwise only when a question uses it).
func TestIndexChecksWhatItDidNotBuild(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path, good := fixtureIndex(t)
	copyOver := func(data []byte) {
		t.Helper()
		tmp := path + ".copy"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	index := func() (report.IndexSummary, string) {
		t.Helper()
		var notes bytes.Buffer
		s, err := Open(fixture, Options{Dump: -1, Index: path, Notes: &notes})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sum, err := s.BuildIndex(false)
		if err != nil {
			t.Fatal(err)
		}
		return sum, notes.String()
	}
	written := func() bool {
		t.Helper()
		x, _, _, err := openFresh(fixture, indexOptions{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		defer x.close()
		return x.ix.Written()
	}

	copyOver(good)
	if written() {
		t.Fatal("a copy of the index is written before it was checked")
	}
	if sum, notes := index(); !sum.Checked || sum.Built {
		t.Errorf("index on a copy: checked %v, built %v (%s); want it checked, not built", sum.Checked, sum.Built, notes)
	}
	if !written() {
		t.Error("a copy checked whole does not open as written")
	}
	if sum, _ := index(); sum.Checked || sum.Built {
		t.Errorf("index again: checked %v, built %v; want neither", sum.Checked, sum.Built)
	}

	for _, c := range []struct {
		section string
		change  func([]byte)
		reseal  bool
		says    string
	}{
		{"answers.dominators", func(b []byte) { b[len(b)/2] ^= 0xFF }, false, `section "answers.dominators"`},
		{"retention.idom", fill(0), true, "object 0's dominator 0 retains"},
	} {
		data := bytes.Clone(good)
		c.change(storetest.Section(data, c.section))
		if c.reseal {
			storetest.Reseal(data)
		}
		copyOver(data)
		sum, notes := index()
		if !sum.Built || sum.Checked || !strings.Contains(notes, "the index was not used") || !strings.Contains(notes, c.says) {
			t.Errorf("%s changed: built %v, checked %v, notes %q; want it built again, saying %q", c.section, sum.Built, sum.Checked, notes, c.says)
		}
	}
}
