package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/parser/input"
)

// redactSecrets are the secrets testdata/redact/java/src/secrets/Secrets.java
// puts in its heap (testdata/redact/EXPECTED.md).
var redactSecrets = []string{
	"S3cr3t-String-Hunter2", "S3cr3t-Char-Array-Swordfish", "S3cr3t-Byte-Array-Opensesame",
	"S3cr3t-Map-Key-Xyzzy", "S3cr3t-Thread-Name-Plugh", "S3cr3t-Property-Xyzzy",
}

// redactSecretLong is the long Secrets.number holds.
const redactSecretLong = 0x5EC2E7C0FFEE1234

// redactFixtures are the dumps of the Secrets program.
var redactFixtures = []string{"jdk17-secrets", "jdk25-secrets"}

func redactFixture(t *testing.T, name string) string {
	return filepath.Join(repoRoot(t), "testdata", "redact", name+".hprof.gz")
}

// readAll returns the decompressed bytes of a dump.
func readAll(t *testing.T, path string) []byte {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// secretForms are the byte strings a secret can be found as: Latin-1,
// UTF-16 in both byte orders; the long's 8 bytes in both byte orders.
func secretForms() map[string][]byte {
	forms := map[string][]byte{}
	for _, s := range redactSecrets {
		forms[s+" (Latin-1)"] = []byte(s)
		be, le := []byte{}, []byte{}
		for _, u := range utf16.Encode([]rune(s)) {
			be, le = binary.BigEndian.AppendUint16(be, u), binary.LittleEndian.AppendUint16(le, u)
		}
		forms[s+" (UTF-16BE)"], forms[s+" (UTF-16LE)"] = be, le
	}
	forms["long (big-endian)"] = binary.BigEndian.AppendUint64(nil, redactSecretLong)
	forms["long (little-endian)"] = binary.LittleEndian.AppendUint64(nil, redactSecretLong)
	return forms
}

// redactCLI runs hprofctl redact and fails the test on an error.
func redactCLI(t *testing.T, args ...string) {
	t.Helper()
	if _, err := runCLI(t, append([]string{"redact"}, args...)...); err != nil {
		t.Fatalf("redact %s: %v", strings.Join(args, " "), err)
	}
}

// TestRedactRemovesSecrets redacts the Secrets dumps, plain and with
// --names, and looks for every secret in the output's bytes; the input must
// hold each in its Latin-1 form (the long big-endian).
func TestRedactRemovesSecrets(t *testing.T) {
	for _, name := range redactFixtures {
		t.Run(name, func(t *testing.T) {
			in := redactFixture(t, name)
			raw := readAll(t, in)
			for _, s := range redactSecrets {
				if !bytes.Contains(raw, []byte(s)) {
					t.Fatalf("the input does not hold %q: the fixture is not what EXPECTED.md says", s)
				}
			}
			if !bytes.Contains(raw, binary.BigEndian.AppendUint64(nil, redactSecretLong)) {
				t.Fatal("the input does not hold the secret long")
			}
			for _, args := range [][]string{nil, {"--names"}} {
				out := filepath.Join(t.TempDir(), "out.hprof.gz")
				redactCLI(t, append(args, in, out)...)
				red := readAll(t, out)
				for what, b := range secretForms() {
					if bytes.Contains(red, b) {
						t.Errorf("redact %v: the output holds the secret %s", args, what)
					}
				}
				if got := histoByClass(t, out, "--mapping", mappingOf(args, out))["secrets.Secrets"].Instances; got != 1 {
					t.Errorf("redact %v: %d instances of secrets.Secrets, want 1", args, got)
				}
			}
		})
	}
}

// mappingOf is the mapping redact wrote beside out when args hold --names,
// else "".
func mappingOf(args []string, out string) string {
	if slices.Contains(args, "--names") {
		return out + ".mapping"
	}
	return ""
}

// redactCompared are the commands whose JSON output must be the same on a
// dump and on its redacted copy (thread names aside); strings is compared
// by its counts and wasted bytes.
var redactCompared = [][]string{
	{"histo"}, {"dominators"}, {"leaks"}, {"top"}, {"collections"}, {"retainers", "--class", "java.lang.Thread"},
}

// threadNameJSON matches the thread names in JSON output: values, which
// redact replaces.
var threadNameJSON = regexp.MustCompile(`"(root_thread|thread)": "(?:[^"\\]|\\.)*"`)

// redactAnswer is hprofctl ARGS PATH -o json, thread names blanked, or
// the error as text.
func redactAnswer(t *testing.T, path string, args ...string) string {
	t.Helper()
	out, err := runCLI(t, append(args, path, "-o", "json")...)
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), path, "DUMP")
	}
	return threadNameJSON.ReplaceAllString(out, `"$1": "…"`)
}

// stringCounts are the counts and wasted bytes of the strings rows.
func stringCounts(t *testing.T, path string, args ...string) string {
	t.Helper()
	var rows []struct {
		Count       int64 `json:"count"`
		WastedBytes int64 `json:"wasted_bytes"`
	}
	out, err := runCLI(t, append([]string{"strings", path, "-o", "json"}, args...)...)
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), path, "DUMP")
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("strings -o json: %v", err)
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

func redactDumpPath(t *testing.T, d string) string {
	if rest, ok := strings.CutPrefix(d, "shared:"); ok {
		return testshared.Path(t, append([]string{"corpus"}, strings.Split(rest, "/")...)...)
	}
	return filepath.Join(repoRoot(t), filepath.FromSlash(d))
}

// redactInputs are every file of testdata and of the shared corpus that
// may be a dump: TestRedactAnswersAlike redacts each, and compares the
// answers on those redact takes as binary HPROF.
func redactInputs(t *testing.T) []string {
	var files []string
	for _, root := range []string{filepath.Join(repoRoot(t), "testdata"), testshared.Path(t, "corpus")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch ext := filepath.Ext(path); {
			case strings.Contains(d.Name(), "hprof"), ext == ".bin":
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// notBinaryHPROF matches redact's refusal of a file that is no binary
// HPROF dump: the hprof agent's ASCII output, a JVMPI capture, a class
// histogram beside a dump, a fragment of a dump.
var notBinaryHPROF = regexp.MustCompile(`ASCII format|not the binary format|expected the magic|header-less heap fragment|JVMPI`)

// TestRedactAnswersAlike redacts every binary HPROF dump of testdata and
// of the shared corpus (JDK 5 to 25, 32- and 64-bit, the hprof agent's,
// Android's, the JVM's -gz, bzip2) and checks that the structural answers
// on each are those on its input.
func TestRedactAnswersAlike(t *testing.T) {
	compared := 0
	for _, in := range redactInputs(t) {
		name, err := filepath.Rel(repoRoot(t), in)
		if err != nil || strings.HasPrefix(name, "..") {
			name = "shared" + strings.TrimPrefix(in, testshared.Path(t))
		}
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.hprof")
			if _, err := runCLI(t, "redact", in, out); err != nil {
				if notBinaryHPROF.MatchString(err.Error()) {
					t.Skipf("not a binary HPROF dump: %v", err)
				}
				t.Fatalf("redact: %v", err)
			}
			compared++
			for _, args := range redactCompared {
				if a, b := redactAnswer(t, in, args...), redactAnswer(t, out, args...); a != b {
					t.Errorf("%s differs on the redacted dump:\n%s", strings.Join(args, " "), firstDiff(a, b))
				}
			}
			if a, b := stringCounts(t, in), stringCounts(t, out); a != b {
				t.Errorf("strings counts differ:\n%s\n%s", a, b)
			}
		})
	}
	// testdata's 20 binary dumps and the corpus's 18.
	if compared < 38 {
		t.Errorf("%d binary HPROF dumps redacted and compared, want every one of testdata and the corpus (38)", compared)
	}
}

// TestRedactNamesMapping redacts with --names and reads the output with the
// mapping redact wrote: leaks and retainers answer as on the input.
func TestRedactNamesMapping(t *testing.T) {
	for _, name := range redactFixtures {
		t.Run(name, func(t *testing.T) {
			in := redactFixture(t, name)
			out := filepath.Join(t.TempDir(), "out.hprof")
			redactCLI(t, "--names", in, out)
			mapping := out + ".mapping"
			text, err := os.ReadFile(mapping)
			if err != nil || !strings.Contains(string(text), "secrets.Secrets -> ") {
				t.Fatalf("mapping %s does not map secrets.Secrets (%v):\n%s", mapping, err, text)
			}
			if h := histoByClass(t, out); h["secrets.Secrets"].Instances != 0 {
				t.Error("without the mapping the output still names secrets.Secrets")
			}
			for _, args := range [][]string{{"leaks"}, {"retainers", "--class", "secrets.Secrets"}, {"retainers", "--class", "java.lang.Thread"}} {
				a, b := redactAnswer(t, in, args...), redactAnswer(t, out, append(args, "--mapping", mapping)...)
				if a != b {
					t.Errorf("%s --mapping differs:\n%s", strings.Join(args, " "), firstDiff(a, b))
				}
			}
		})
	}
}

// firstDiff shows the first differing line of two outputs.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  in:  " + la[i] + "\n  out: " + lb[i]
		}
	}
	return "lengths differ"
}
