package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCutBeforeHeap cuts the gzip of a real JDK 17 dump after 200,000
// compressed bytes, before its heap dump began (checked by walking the
// record headers of what inflates: no HEAP_DUMP or HEAP_DUMP_SEGMENT
// record starts in it). A question about the heap must say the file was
// cut before its heap, not that it holds only profiling data.
func TestCutBeforeHeap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "jvm", "jdk17-default.hprof.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:200000]
	zr, err := gzip.NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr) // ends with an unexpected EOF: the cut
	if heapRecordIn(t, plain) {
		t.Fatal("the cut lies after the heap dump began; choose a shorter prefix")
	}
	path := filepath.Join(t.TempDir(), "cut.hprof.gz")
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runCLI(t, "leaks", "--index-dir", t.TempDir(), path)
	if err == nil || !strings.Contains(err.Error(), "cut before its heap dump began") || strings.Contains(err.Error(), "profiling data") {
		t.Errorf("leaks on a dump cut before its heap: %v", err)
	}
}

// heapRecordIn walks the top-level records of the HPROF prefix plain and
// tells whether a HEAP_DUMP (0x0C) or HEAP_DUMP_SEGMENT (0x1C) record
// starts in it.
func heapRecordIn(t *testing.T, plain []byte) bool {
	t.Helper()
	nul := bytes.IndexByte(plain, 0)
	if nul < 0 || !strings.HasPrefix(string(plain), "JAVA PROFILE 1.0.") {
		t.Fatal("no HPROF header")
	}
	for at := nul + 1 + 4 + 8; at+9 <= len(plain); {
		tag := plain[at]
		if tag == 0x0C || tag == 0x1C {
			return true
		}
		at += 9 + int(binary.BigEndian.Uint32(plain[at+5:]))
	}
	return false
}
