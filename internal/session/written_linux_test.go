package session

import (
	"os"
	"reflect"
	"testing"
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
