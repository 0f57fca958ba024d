package report

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files instead of comparing with them:
// go test ./report/ -update. Review every rewritten file by eye: a golden
// file is this package's own output, so only a person can say it is right.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// variant is one way of rendering a case: a format, and for tables whether
// byte counts are exact (--bytes).
type variant struct {
	name string
	opt  Options
}

// The variants renderGolden renders a case in.
var (
	asTable      = variant{"table", Options{Format: Table}}
	asTableBytes = variant{"bytes", Options{Format: Table, ExactBytes: true}}
	asJSON       = variant{"json", Options{Format: JSON}}
	asCSV        = variant{"csv", Options{Format: CSV}}
	allVariants  = []variant{asTable, asTableBytes, asJSON, asCSV}
)

// goldenName is the file under testdata/golden of a case in a variant.
func goldenName(name string, v variant) string {
	switch v {
	case asJSON:
		return name + ".json"
	case asCSV:
		return name + ".csv"
	case asTableBytes:
		return name + ".bytes.txt"
	}
	return name + ".txt"
}

// renderGolden renders a case in each variant, compares each output with
// its golden file (or rewrites it with -update) and returns the outputs
// by variant name, for the direct assertions of the caller.
func renderGolden(t *testing.T, name string, variants []variant, render func(w io.Writer, o Options) error) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range variants {
		var b strings.Builder
		if err := render(&b, v.opt); err != nil {
			t.Fatalf("%s as %s: %v", name, v.name, err)
		}
		compareGolden(t, goldenName(name, v), b.String())
		out[v.name] = b.String()
	}
	return out
}

// compareGolden compares got with testdata/golden/file, or writes it there
// with -update.
func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", file)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./report/ -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from its golden file (go test ./report/ -update rewrites it, then review the diff)\ngot:\n%s\nwant:\n%s", file, got, want)
	}
}

// TestNoEmptyTable checks every golden table: each has a header, a rule
// and at least one row; a table without rows is a line saying none.
func TestNoEmptyTable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden tables (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			if !strings.HasPrefix(l, "┌") {
				continue
			}
			if i+3 >= len(lines) || !strings.HasPrefix(lines[i+2], "├") || !strings.HasPrefix(lines[i+3], "│") {
				t.Errorf("%s: the table at line %d has no rows", f, i+1)
			}
		}
	}
}

// readCSV parses CSV output into records.
func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, s)
	}
	return recs
}

// decodeJSON decodes JSON output into v.
func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
}

// wantLines fails unless s holds each of lines as a whole line.
func wantLines(t *testing.T, what, s string, lines ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		have[l] = true
	}
	for _, l := range lines {
		if !have[l] {
			t.Errorf("%s: no line %q in\n%s", what, l, s)
		}
	}
}

// wantContains fails unless s holds each of subs.
func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s: no %q in\n%s", what, sub, s)
		}
	}
}
