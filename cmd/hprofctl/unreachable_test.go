package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// matUnreachableNote is what every answer says of Eclipse MAT's
// java_pid1884.0001.hprof (CreateSampleDump, AdoptOpenJDK 11.0.4): no GC
// root reaches its one huge byte[] of 497 MiB, 99.9% of the dump, while
// the reachable heap is about 550 KiB (MAT's own overview shows the same
// split, as issue #23 reports).
const matUnreachableNote = "497 MiB in 110 unreachable objects (99.9% of the dump's object bytes) left out: no GC root reaches them; --keep-unreachable includes them"

// TestUnreachableSaid checks that leaks, top, report and serve's overview
// and leak page say how much of MAT's dump is unreachable and which flag
// includes it, and that with --keep-unreachable they say it is counted.
func TestUnreachableSaid(t *testing.T) {
	dump := filepath.Join(sharedCorpus(t), "eclipse-mat_mat", "java_pid1884.0001.hprof.gz")
	for _, cmd := range []string{"leaks", "top", "report"} {
		out, err := runCLI(t, cmd, dump)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if cmd == "report" {
			out = strings.ReplaceAll(out, "&#39;", "'")
		}
		if !strings.Contains(out, matUnreachableNote) {
			t.Errorf("%s does not say what is unreachable:\n%.3000s", cmd, out)
		}
	}
	out, err := runCLI(t, "top", "--keep-unreachable", dump)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "497 MiB in 110 unreachable objects (99.9% of the dump's object bytes) counted as reachable (--keep-unreachable)") {
		t.Errorf("top --keep-unreachable:\n%s", out)
	}
	ts := serveDump(t, dump)
	for _, page := range []string{"/", "/leaks"} {
		_, _, body := get(t, "GET", ts.URL+page)
		if !strings.Contains(strings.ReplaceAll(body, "&#39;", "'"), matUnreachableNote) {
			t.Errorf("serve %s does not say what is unreachable:\n%.3000s", page, body)
		}
	}
}
