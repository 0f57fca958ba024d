package main

import (
	"encoding/json"
	"testing"
)

// runBoth runs a command with --no-index and from a fresh index and
// returns its output, failing when the two differ.
func runBoth(t *testing.T, args ...string) string {
	t.Helper()
	direct, err := runCLI(t, append([]string{"--no-index"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := runCLI(t, append([]string{"--index-dir", t.TempDir()}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if indexed != direct {
		t.Errorf("%v from the index differs from --no-index:\n%.800s\n%.800s", args, indexed, direct)
	}
	return direct
}

// TestStringsCollectionsInspect runs strings and collections on the
// fixture.Inspect dumps (testdata/jvm/EXPECTED.md: duplicated strings,
// collections and arrays), from an index and with --no-index: the same
// JSON, with the copies the program made, and per class as many
// collections as the JVM's histogram counts.
func TestStringsCollectionsInspect(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		t.Run(jdk, func(t *testing.T) {
			dump := fixturePath(t, jdk+"-inspect-before.hprof.gz")
			var strs []struct {
				Value  string `json:"value"`
				Count  int64  `json:"count"`
				Wasted int64  `json:"wasted_bytes"`
			}
			if err := json.Unmarshal([]byte(runBoth(t, "strings", "--min-count", "20", "-o", "json", dump)), &strs); err != nil {
				t.Fatal(err)
			}
			want := map[string][2]int64{
				"duplicate-value-42":   {5000, 4999 * 64},
				"duplicate-value-7":    {300, 299 * 64},
				"duplicate-value-1234": {20, 19 * 64},
				"duplicate-Ω-9":        {50, 49 * 72},
			}
			for _, s := range strs {
				if w, ok := want[s.Value]; ok {
					if s.Count != w[0] || s.Wasted != w[1] {
						t.Errorf("%q: %d copies wasting %d, want %d wasting %d", s.Value, s.Count, s.Wasted, w[0], w[1])
					}
					delete(want, s.Value)
				}
			}
			if len(want) > 0 {
				t.Errorf("not listed: %v", want)
			}

			var colls struct {
				Collections []struct {
					Class     string `json:"class"`
					Instances int64  `json:"instances"`
				} `json:"collections"`
			}
			if err := json.Unmarshal([]byte(runBoth(t, "collections", "--top", "0", "-o", "json", dump)), &colls); err != nil {
				t.Fatal(err)
			}
			jvm := readJVMHistogram(t, fixturePath(t, jdk+"-inspect-before.histo.txt"))
			got := map[string]int64{}
			for _, c := range colls.Collections {
				got[c.Class] = c.Instances
			}
			// No set is backed by these, so each counts every instance.
			for _, class := range []string{"java.util.ArrayList", "java.util.LinkedList", "java.util.TreeMap", "java.util.Vector",
				"java.util.PriorityQueue", "java.util.ArrayDeque", "java.util.concurrent.CopyOnWriteArrayList", "java.util.HashSet",
				"java.util.IdentityHashMap", "java.util.WeakHashMap", "java.util.Hashtable"} {
				if got[class] != jvm[class].Instances {
					t.Errorf("%s: %d collections, the JVM's histogram counts %d", class, got[class], jvm[class].Instances)
				}
			}
			runBoth(t, "collections", "--objects", "--top", "5", "-o", "json", dump)
		})
	}
}
