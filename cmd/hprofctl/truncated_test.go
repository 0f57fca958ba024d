package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type anomalyJSON struct {
	Kind   string `json:"kind"`
	Count  int64  `json:"count"`
	Offset int64  `json:"offset"`
	Line   int64  `json:"line"`
	Detail string `json:"detail"`
}

// truncatedAnomaly runs info on path and returns its truncated anomaly.
func truncatedAnomaly(t *testing.T, path string) (anomalyJSON, int64, int64) {
	t.Helper()
	var in struct {
		Truncated bool          `json:"truncated"`
		Bytes     int64         `json:"bytes_read"`
		Lines     int64         `json:"lines_read"`
		Anomalies []anomalyJSON `json:"anomalies"`
	}
	runJSON(t, &in, "info", path)
	for _, a := range in.Anomalies {
		if a.Kind == "truncated" && in.Truncated {
			return a, in.Bytes, in.Lines
		}
	}
	t.Fatalf("%s: truncated %v, anomalies %+v: no truncation reported", path, in.Truncated, in.Anomalies)
	return anomalyJSON{}, 0, 0
}

// TestTruncationSaysWhereAndHowMuch: a dump cut short says that it is
// truncated, where (a byte offset for binary files, a line for ASCII
// ones) and how much was read before the cut.
func TestTruncationSaysWhereAndHowMuch(t *testing.T) {
	dir := t.TempDir()
	gz, err := os.Open(fixturePath(t, "jdk17-default.hprof.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	const cut = 2_000_000
	head := make([]byte, cut)
	if _, err := io.ReadFull(zr, head); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "cut.hprof")
	if err := os.WriteFile(binary, head, 0o644); err != nil {
		t.Fatal(err)
	}
	a, bytes, _ := truncatedAnomaly(t, binary)
	if a.Offset <= cut-4096 || a.Offset > cut || a.Line != 0 || bytes != cut ||
		!strings.Contains(a.Detail, "truncated at offset") || !strings.Contains(a.Detail, "2000000 bytes were read") {
		t.Errorf("binary: anomaly %+v, %d bytes read; want the cut near offset %d and %d bytes read", a, bytes, cut, cut)
	}

	// The ASCII fixture cut inside its first HEAP DUMP, after line 50.
	text, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ascii", "jvmti.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	ascii := filepath.Join(dir, "cut.txt")
	kept := strings.Join(lines[:50], "")
	if err := os.WriteFile(ascii, []byte(kept), 0o644); err != nil {
		t.Fatal(err)
	}
	a, bytes, n := truncatedAnomaly(t, ascii)
	if a.Line != 50 || a.Offset != -1 || n != 50 || bytes != int64(len(kept)) ||
		!strings.Contains(a.Detail, "truncated at line 50") || !strings.Contains(a.Detail, "50 lines") {
		t.Errorf("ASCII: anomaly %+v, %d lines and %d bytes read; want the cut at line 50 after %d bytes", a, n, bytes, len(kept))
	}
}
