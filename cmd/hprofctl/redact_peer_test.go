package main

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// visualVMJar is where Debian's visualvm package puts VisualVM's heap
// library, which ../shared/peers/visualvm/run.sh drives (VV_HEAP_JAR
// overrides it for both).
const visualVMJar = "/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar"

// redactPeerDumps are the dumps TestRedactVisualVMHistogram redacts: the
// Secrets fixtures, and from the shared corpus a JDK 11 dump, a JDK 6
// dump with 4-byte identifiers and an Android one.
var redactPeerDumps = []string{
	"testdata/redact/jdk17-secrets.hprof.gz", "testdata/redact/jdk25-secrets.hprof.gz",
	"shared:eclipse-mat_mat/openjdk_jdk11_04_x64.hprof.gz", "shared:eclipse-mat_mat/sun_jdk6_18_x32.hprof.gz",
	"shared:android/test-dump-base.hprof.gz",
}

// visualVMHisto is VisualVM's class histogram of dump (TSV: class,
// instances, bytes), its index kept in a directory of the test's.
func visualVMHisto(t *testing.T, script, dump string) string {
	t.Helper()
	cmd := exec.Command("sh", script, "histo", dump)
	cmd.Env = append(os.Environ(), "VV_WORK="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("VisualVM on %s: %v\n%s", dump, err, stderr.String())
	}
	return string(out)
}

// TestRedactVisualVMHistogram has an independent reader, VisualVM's heap
// library, read each redacted dump: it counts the class histogram it
// counts on the input, the Secrets program's one secrets.Secrets
// (testdata/redact/EXPECTED.md) among the rows. Skipped where the Debian
// package visualvm or a JDK is not installed, unless
// HPROFCTL_REQUIRE_VISUALVM is set (.ci/run installs the package and sets
// it), which makes their absence a failure.
func TestRedactVisualVMHistogram(t *testing.T) {
	missing := t.Skipf
	if os.Getenv("HPROFCTL_REQUIRE_VISUALVM") != "" {
		missing = t.Fatalf
	}
	jar := cmp.Or(os.Getenv("VV_HEAP_JAR"), visualVMJar)
	if _, err := os.Stat(jar); err != nil {
		missing("VisualVM's heap library %s is not installed (apt-get install visualvm)", jar)
	}
	if _, err := exec.LookPath("javac"); err != nil {
		missing("no javac to compile the VisualVM driver with")
	}
	script := testshared.Path(t, "peers", "visualvm", "run.sh")
	for _, d := range redactPeerDumps {
		t.Run(filepath.Base(d), func(t *testing.T) {
			in := redactDumpPath(t, d)
			out := filepath.Join(t.TempDir(), "redacted.hprof.gz")
			redactCLI(t, in, out)
			want, got := visualVMHisto(t, script, in), visualVMHisto(t, script, out)
			if got != want {
				t.Errorf("VisualVM's histogram differs on the redacted dump:\n%s", firstDiff(want, got))
			}
			if strings.Contains(d, "secrets") && !strings.Contains(got, "\nsecrets.Secrets\t1\t") {
				t.Errorf("VisualVM counts no single secrets.Secrets on the redacted dump:\n%s", got)
			}
		})
	}
}
