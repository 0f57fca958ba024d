package model

import (
	"runtime/debug"
	"testing"

	"github.com/hprofctl/hprofctl/parser/input"
)

// TestLeanGCRestores checks that a load with LeanGC leaves the garbage
// collector as it found it, after a good load and after a failed one.
func TestLeanGCRestores(t *testing.T) {
	const setting = 77
	previous := debug.SetGCPercent(setting)
	defer debug.SetGCPercent(previous)
	for _, path := range []string{"../testdata/jvm/jdk17-default.hprof.gz", "../README.md"} {
		f, err := input.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(f, LoadOptions{Dump: -1, Objects: true, LeanGC: true})
		f.Close()
		if (err != nil) != (path == "../README.md") {
			t.Errorf("%s: %v", path, err)
		}
		if got := debug.SetGCPercent(setting); got != setting {
			t.Errorf("%s: GC percent %d after the load, want %d restored", path, got, setting)
		}
	}
}
