package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryFlag: --memory below what a build needs, or no size, is an
// error that says what would do; a small budget that is enough builds
// the index.
func TestMemoryFlag(t *testing.T) {
	dump := filepath.Join("..", "..", "testdata", "jvm", "jdk17-default.hprof.gz")
	for arg, want := range map[string]string{
		"1MiB": "--memory 1.0 MiB is too small: an index build keeps its classes, names and roots in memory and needs at least 64 MiB",
		"lots": `--memory "lots": expected a size such as 512MiB or 4GiB`,
	} {
		_, err := runCLI(t, "index", "--memory", arg, "--index-dir", t.TempDir(), dump)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--memory %s: error %v, want %q", arg, err, want)
		}
	}
	if _, err := runCLI(t, "index", "--memory", "64MiB", "--index-dir", t.TempDir(), dump); err != nil {
		t.Errorf("--memory 64MiB: %v", err)
	}
}
