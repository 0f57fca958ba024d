package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestThreadNamesOfCharArrayDumps: up to JDK 8 Thread.name is a char[],
// not a String; threads, show and OQL toString decode both layouts. Every
// HotSpot JVM runs the threads "Signal Dispatcher", "Finalizer" and
// "Reference Handler"; CreateSampleDump and CreateCollectionDump run in
// "main" (MAT's OQLTest.testUnion, OQLTest.java:330, reads "main" as the
// toString of a Thread).
func TestThreadNamesOfCharArrayDumps(t *testing.T) {
	dir := filepath.Join(sharedCorpus(t), "eclipse-mat_mat")
	for _, name := range []string{"sun_jdk5_64bit", "sun_jdk6_32bit", "sun_jdk6_18_x32", "oracle_jdk7_21_x64", "oracle_jdk8_05_x64"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".hprof.gz")
			var threads []threadJSON
			runJSON(t, &threads, "threads", "--index-dir", t.TempDir(), path)
			var names []string
			for _, th := range threads {
				if th.Name == "" {
					t.Errorf("thread serial %d has no name", th.Serial)
				}
				names = append(names, th.Name)
			}
			for _, want := range []string{"Signal Dispatcher", "Finalizer", "Reference Handler"} {
				if !slices.Contains(names, want) {
					t.Errorf("threads: no %q among %q", want, names)
				}
			}
			var q struct {
				Rows [][]string `json:"rows"`
			}
			runJSON(t, &q, "query", "--index-dir", t.TempDir(), path, `select toString(t) from java.lang.Thread t`)
			if !slices.ContainsFunc(q.Rows, func(r []string) bool { return len(r) == 1 && r[0] == "main" }) {
				t.Errorf("toString of the Threads: no \"main\" in %q", q.Rows)
			}
		})
	}
}
