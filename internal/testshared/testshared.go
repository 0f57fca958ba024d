// Package testshared finds, for tests, the data kept beside the repository
// in ../shared: real dumps that public projects published (corpus/) and
// JVMPI captures (jvmpi-samples/). That data is not copied into the
// repository, because some of its files may not be redistributed.
//
// A test that needs a file there is skipped when it is absent, so that a
// newcomer's `make test` passes without it; CI sets HPROFCTL_REQUIRE_SHARED
// (see .ci/run), which makes a missing file a failure instead, so that no
// test silently stops running there.
package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv is the environment variable that makes missing shared data a
// test failure rather than a skip.
const RequireEnv = "HPROFCTL_REQUIRE_SHARED"

// Find returns the path of ../shared/elem... beside the repository holding
// the current directory, and whether it exists.
func Find(elem ...string) (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	p := filepath.Join(append([]string{dir, "..", "shared"}, elem...)...)
	_, err = os.Stat(p)
	return p, err == nil
}

// Path returns the path of ../shared/elem...; when it does not exist the
// test is skipped, or fails when RequireEnv is set.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	p, ok := Find(elem...)
	if !ok {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("shared test data %s is missing (%s is set)", filepath.Join(elem...), RequireEnv)
		}
		t.Skipf("shared test data %s is not present", filepath.Join(elem...))
	}
	return p
}
