package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the indexes the tests' commands build in a temporary
// directory (HPROFCTL_INDEX_DIR), not beside the fixtures in the
// repository or in ../shared, and removes them after.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hprofctl-test-index-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("HPROFCTL_INDEX_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
