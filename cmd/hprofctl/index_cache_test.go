package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/report"
)

// TestIndexListAndPrune: of four files in an index directory (the index of
// a dump still there, of a dump since removed, of a dump since rewritten,
// and a killed build's temporary file), --list tells each one's state and
// --prune removes all but the fresh one.
func TestIndexListAndPrune(t *testing.T) {
	idx := t.TempDir()
	var dumps []string
	for _, name := range []string{"kept", "removed", "rewritten"} {
		dir := filepath.Join(t.TempDir(), name)
		os.Mkdir(dir, 0o755)
		dump := plainFixture(t, dir, "jdk17-default")
		if _, err := runCLI(t, "--index-dir", idx, "index", dump); err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, dump)
	}
	os.Remove(dumps[1])
	plainFixture(t, filepath.Dir(dumps[2]), "jdk17-nocoops")
	abandoned := filepath.Join(idx, "heap.hprof-0123"+store.Suffix+".77.tmp")
	os.WriteFile(abandoned, []byte("cut"), 0o600)

	states := func(args ...string) map[string]report.CachedIndex {
		t.Helper()
		var l report.IndexList
		runJSON(t, &l, append([]string{"--index-dir", idx, "index"}, args...)...)
		out := map[string]report.CachedIndex{}
		for _, c := range l.Indexes {
			key := c.Dump
			if key == "" {
				key = c.Index
			}
			out[key] = c
		}
		return out
	}
	listed := states("--list")
	want := map[string]string{dumps[0]: "fresh", dumps[1]: "dump gone", dumps[2]: "stale", abandoned: "abandoned"}
	if len(listed) != len(want) {
		t.Errorf("listed %v, want %v", listed, want)
	}
	for key, state := range want {
		if c := listed[key]; c.State != state || c.Removed {
			t.Errorf("%s: listed as %q (removed %v), want %q", key, c.State, c.Removed, state)
		}
	}
	pruned := states("--prune")
	for key := range want {
		if c := pruned[key]; c.Removed != (key != dumps[0]) {
			t.Errorf("%s (%s): removed %v", key, c.State, c.Removed)
		}
		if _, err := os.Stat(pruned[key].Index); os.IsNotExist(err) != (key != dumps[0]) {
			t.Errorf("%s: file there after the prune: %v", key, err == nil)
		}
	}
	if after := states("--list"); len(after) != 1 || after[dumps[0]].State != "fresh" {
		t.Errorf("after the prune: %v, want the fresh index alone", after)
	}
	var empty struct{ Indexes json.RawMessage }
	runJSON(t, &empty, "--index-dir", t.TempDir(), "index", "--list")
	if string(empty.Indexes) != "[]" {
		t.Errorf("an empty directory lists %s, want []", empty.Indexes)
	}
}
