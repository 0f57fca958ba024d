package main

import (
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/model/store"
)

// TestStringsFromIndexCensus checks the census of the Strings an index of
// a plain dump keeps: the index has it (strings.meta), and strings
// answered from it is the answer read from the dump (--no-index), in both
// size modes, cut or not, at several minimum counts.
func TestStringsFromIndexCensus(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"jdk17-default", "jdk25-default", "jdk17-nocoops"} {
		t.Run(name, func(t *testing.T) {
			dump := gunzipFixture(t, fixturePath(t, name+".hprof.gz"), dir)
			indexDir := filepath.Join(dir, "index-"+name)
			if _, err := runCLI(t, "index", "--index-dir", indexDir, dump); err != nil {
				t.Fatal(err)
			}
			place, err := store.LocateIn(dump, indexDir)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := place.Open(store.Identity{Content: session.IndexContent, Dump: mustFingerprint(t, dump)})
			if err != nil {
				t.Fatal(err)
			}
			_, kept := ix.Section("strings.meta")
			ix.Close()
			if !kept {
				t.Fatal("the index of a plain dump keeps no census of its Strings")
			}
			for _, args := range [][]string{
				{"strings"},
				{"strings", "--top", "0", "--size", "fields"},
				{"strings", "--top", "0", "--min-count", "3"},
				{"strings", "--top", "5", "--min-count", "10"},
			} {
				want, err := runCLI(t, append(args, "--no-index", "-o", "json", dump)...)
				if err != nil {
					t.Fatal(err)
				}
				got, err := runCLI(t, append(args, "--index-dir", indexDir, "-o", "json", dump)...)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%v: from the index\n%s\nfrom the dump\n%s", args, got, want)
				}
			}
		})
	}
}
