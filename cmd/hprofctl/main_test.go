package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/hprofctl/hprofctl/internal/browsertest"
)

// runMainEnv makes the test binary run hprofctl itself (with the
// arguments after "--"), so tests can run it as a process of its own: as
// another user, several at once, on standard input.
const runMainEnv = "HPROFCTL_TEST_RUN_MAIN"

// TestMain keeps the indexes the tests' commands build in a temporary
// directory (HPROFCTL_INDEX_DIR), not beside the fixtures in the
// repository or in ../shared, and removes them after; it ends the
// browser the report tests started.
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"hprofctl"}, os.Args[i+1:]...)
				break
			}
		}
		os.Exit(run())
	}
	dir, err := os.MkdirTemp("", "hprofctl-test-index-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("HPROFCTL_INDEX_DIR", dir)
	code := m.Run()
	browsertest.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}
