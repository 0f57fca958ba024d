package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

// identityDumps lists every dump of testdata and, when ../shared is there,
// of the corpus and the JVMPI captures (a .bin with its manifest beside).
func identityDumps(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../testdata/*/*.hprof*", "../../testdata/*/*/*.hprof*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if corpus, ok := testshared.Find("corpus"); ok {
		err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".map") && !isHistogramText(p) && !strings.HasSuffix(p, ".TMP.gz") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if samples, ok := testshared.Find("jvmpi-samples"); ok {
		m, err := filepath.Glob(filepath.Join(samples, "*.bin"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			if _, err := os.Stat(strings.TrimSuffix(p, ".bin") + ".json"); err == nil {
				files = append(files, p)
			}
		}
	}
	if len(files) < 20 {
		t.Fatalf("only %d dumps found", len(files))
	}
	return files
}

// identityCommands are the heap commands whose JSON must not depend on
// whether an index answers them (diff, which reads two dumps, has
// TestDiffIndexIdentity); the first identityBuilds of them are also
// run while building an index (the analysis then comes from memory, not
// from the mapped file).
var identityCommands = [][]string{
	{"dominators", "--top", "5", "--children", "3"},
	{"leaks", "--threshold", "5"},
	{"retainers", "--class", `^java\.lang\.(String|Class|Thread)$`},
	{"info"},
	{"info", "--size", "fields"},
	{"histo"},
	{"histo", "--size", "fields", "--sort", "count"},
	{"dominators", "--top", "20"},
	{"dominators", "--top", "20", "--size", "fields"},
	{"dominators", "--top", "10", "--by-class"},
	{"dominators", "--class", `HashMap`, "--children", "3"},
	{"dominators", "--top", "10", "--keep-unreachable"},
	{"leaks"},
	{"leaks", "--threshold", "1", "--keep-unreachable"},
	{"leaks", "--size", "fields"},
	{"retainers", "--class", `^java\.lang\.(String|Class|Thread)$`},
	{"retainers", "--class", `\[\]$`, "--paths", "5"},
	{"retainers", "--class", `.`, "--include-weak"},
	{"sites"},
	{"sites", "--by", "class"},
	{"top"},
	{"top", "--by", "package", "--top", "0"},
	{"top", "--by", "classloader", "--size", "fields"},
	{"threads"},
	{"threads", "--retained"},
	{"deadlocks"},
	{"strings", "--top", "0", "--size", "fields"},
	{"collections", "--objects", "--top", "0"},
	{"collections"},
}

const identityBuilds = 3

// TestIndexIdentity runs every heap command on every dump reading the dump
// (--no-index) and from a fresh index, and the first ones also while
// building an index; the answers (JSON, or the error) are the same.
// Retainers of single objects are asked for the biggest dominators'
// objects, show for the biggest one.
func TestIndexIdentity(t *testing.T) {
	for _, dump := range identityDumps(t) {
		name := filepath.Base(dump)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			commands := slices.Clone(identityCommands)
			var top []struct {
				ObjectID string `json:"object_id"`
			}
			out, err := runCLI(t, "dominators", "--no-index", "--top", "3", "-o", "json", dump)
			hasHeap := err == nil
			if hasHeap {
				if err := json.Unmarshal([]byte(out), &top); err != nil {
					t.Fatalf("dominators: %v", err)
				}
			}
			for k, row := range top {
				commands = append(commands, []string{"retainers", "--object", row.ObjectID, "--paths", "3"})
				if k == 0 {
					commands = append(commands, []string{"show", "--referrers", "--path", "--elements", "5", row.ObjectID})
				}
			}
			builds := 0
			for k, c := range commands {
				args := append(slices.Clone(c), "-o", "json", dump)
				if c[0] == "show" {
					// show takes its ids after the file.
					args = append(slices.Clone(c[:len(c)-1]), "-o", "json", dump, c[len(c)-1])
				}
				direct, directErr := runCLI(t, append([]string{"--no-index"}, args...)...)
				runs := []string{"from the index"}
				if k < identityBuilds {
					runs = append(runs, "building a new index")
				}
				for _, run := range runs {
					indexDir := dir
					if run != "from the index" {
						indexDir = t.TempDir()
					}
					got, err := runCLI(t, append([]string{"--index-dir", indexDir}, args...)...)
					if errText(err) != errText(directErr) {
						t.Errorf("%s (%s): error %q, without one: %q", strings.Join(c, " "), run, errText(err), errText(directErr))
						continue
					}
					if got != direct {
						t.Errorf("%s (%s) differs from --no-index:\nindex:    %.600s\nno index: %.600s", strings.Join(c, " "), run, got, direct)
					}
				}
				if entries, _ := os.ReadDir(dir); len(entries) > builds {
					builds = len(entries)
				}
			}
			if hasHeap && builds != 1 {
				t.Errorf("%d index files were made for a heap dump, want 1", builds)
			}
		})
	}
}

// errText is an error's message, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
