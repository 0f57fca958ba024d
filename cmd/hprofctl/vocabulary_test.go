package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// vocabularyCase is one command whose JSON and CSV the vocabulary test
// walks: rows are the paths (dot-separated keys, lists walked through) of
// the JSON rows each CSV table lists, in the order of the tables (paths
// joined by "|" where a CSV row joins a row and its nested one); csvOnly
// are the CSV columns that no JSON row has (a rank, a flattened stack, a
// value the JSON leaves out when empty). A query's CSV columns are its
// expressions, not keys: jsonOnly checks its JSON alone.
type vocabularyCase struct {
	args     []string
	rows     []string
	csvOnly  []string
	jsonOnly bool
}

// snakeCase is a snake_case key.
var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// dataMaps are the JSON objects whose keys are names from the dump (GC
// root kinds, record names) rather than the vocabulary: snake_case, yet
// not listed one by one.
var dataMaps = []string{"gc_roots", "records", "sub_records"}

// readVocabulary reads the keys docs/vocabulary.md documents: the first
// cell of each table row, in backquotes.
func readVocabulary(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "vocabulary.md"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, line := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			keys[m[1]] = true
		}
	}
	if len(keys) < 50 {
		t.Fatalf("docs/vocabulary.md documents %d keys: is its table still | `key` | meaning | unit |?", len(keys))
	}
	return keys
}

// TestVocabulary runs every command that writes JSON and CSV on real
// fixtures and checks each key against docs/vocabulary.md: every JSON key
// and CSV header is snake_case and documented, and every CSV column is a
// key of the JSON rows the table lists (a nested object's keys joined to
// its own by "_"), so that a script reads the same name in both.
func TestVocabulary(t *testing.T) {
	vocab := readVocabulary(t)
	oom := fixturePath(t, "jdk17-oom.hprof.gz")
	heapShapes := fixturePath(t, "jdk17-default.hprof.gz")
	threadsDir := filepath.Join(repoRoot(t), "testdata", "threads")
	agent := filepath.Join(repoRoot(t), "testdata", "agent")
	var ids []struct {
		ObjectID string `json:"object_id"`
	}
	runJSON(t, &ids, "dominators", "--top", "1", oom)
	if len(ids) != 1 {
		t.Fatalf("dominators --top 1 lists %d objects", len(ids))
	}
	cases := []vocabularyCase{
		{args: []string{"info", oom}},
		{args: []string{"index", oom}},
		{args: []string{"histo", oom}, rows: []string{""}},
		{args: []string{"dominators", oom}, rows: []string{""}},
		{args: []string{"dominators", "--by-class", oom}, rows: []string{""}},
		{args: []string{"top", oom}, rows: []string{""}},
		{args: []string{"top", "--by", "package", oom}, rows: []string{""}},
		{args: []string{"top", "--by", "classloader", oom}, rows: []string{""}},
		{args: []string{"leaks", oom}, rows: []string{""}, csvOnly: []string{"instances", "label"}},
		{args: []string{"strings", oom}, rows: []string{""}},
		{args: []string{"collections", oom}, rows: []string{"collections", "arrays"}},
		{args: []string{"collections", "--objects", oom}, rows: []string{"collections", "arrays"}},
		{args: []string{"threads", oom}, rows: []string{""}, csvOnly: []string{"depth"}},
		{args: []string{"threads", "--retained", oom}, rows: []string{""}, csvOnly: []string{"depth", "locals"}},
		{args: []string{"retainers", "--class", `^fixture\.OomChunk$`, oom}, rows: []string{"paths|paths.chain"}, csvOnly: []string{"path", "root"}},
		{args: []string{"show", "--referrers", "--path", oom, ids[0].ObjectID}, rows: []string{"fields"}, csvOnly: []string{"object_id", "part"}},
		{args: []string{"diff", heapShapes, oom}, rows: []string{"classes"}},
		{args: []string{"query", oom, "SELECT s, s.@retainedHeapSize FROM java.lang.String s"}, jsonOnly: true},
		{args: []string{"deadlocks", filepath.Join(threadsDir, "jdk17-mixed-pair.jstack.txt")}, rows: []string{"deadlocks.threads"},
			csvOnly: []string{"source", "deadlock", "role", "thread"}},
		{args: []string{"deadlocks", filepath.Join(threadsDir, "jdk25-lock-pair.json"), filepath.Join(threadsDir, "jdk17-monitor-pair.jstack.txt")},
			rows: []string{"reports.owner_unknown"}, csvOnly: []string{"source", "deadlock", "role", "thread", "state"}},
		{args: []string{"deadlocks", filepath.Join(threadsDir, "heap", "jdk17-mixed-pair.hprof.gz")}, rows: []string{"possible_deadlocks.waiting"},
			csvOnly: []string{"source", "deadlock", "role", "thread", "state"}},
		{args: []string{"sites", filepath.Join(agent, "sites-binary.hprof.gz")}, rows: []string{""}},
		{args: []string{"cpu", filepath.Join(agent, "cpu-samples.hprof.txt.gz")}, rows: []string{""}, csvOnly: []string{"method"}},
		{args: []string{"cpu", "--by", "method", filepath.Join(agent, "cpu-times.hprof.txt.gz")}, rows: []string{""}},
		{args: []string{"monitors", filepath.Join(agent, "monitor-contention.hprof.txt.gz")}, rows: []string{"contended"}},
		{args: []string{"monitors", filepath.Join(agent, "monitor-deadlock.hprof.txt.gz")}, rows: []string{"monitors"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[:1], " "), func(t *testing.T) {
			out, err := runCLI(t, append(c.args, "-o", "json")...)
			if err != nil {
				t.Fatalf("%s -o json: %v", c.args, err)
			}
			var doc any
			dec := json.NewDecoder(strings.NewReader(out))
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("%s -o json: %v\n%s", c.args, err, out)
			}
			if dec.More() {
				t.Errorf("%s -o json writes more than one JSON document", c.args)
			}
			checkJSONKeys(t, c.args, doc, "", vocab)
			if c.jsonOnly {
				return
			}
			out, err = runCLI(t, append(c.args, "-o", "csv")...)
			if err != nil {
				t.Fatalf("%s -o csv: %v", c.args, err)
			}
			tables := strings.Split(strings.TrimSuffix(out, "\n"), "\n\n")
			if c.rows != nil && len(tables) != len(c.rows) {
				t.Fatalf("%s -o csv writes %d tables, want %d:\n%s", c.args, len(tables), len(c.rows), out)
			}
			for k, table := range tables {
				recs, err := csv.NewReader(strings.NewReader(table)).ReadAll()
				if err != nil || len(recs) == 0 {
					t.Fatalf("%s -o csv: %v\n%s", c.args, err, out)
				}
				for _, key := range recs[0] {
					if !snakeCase.MatchString(key) || !vocab[key] {
						t.Errorf("%s: CSV column %q is not a snake_case key of docs/vocabulary.md", c.args, key)
					}
				}
				if c.rows == nil {
					checkNameValueCSV(t, c.args, recs, doc)
					continue
				}
				rowKeys := map[string]bool{}
				for _, path := range strings.Split(c.rows[k], "|") {
					for _, row := range walkRows(doc, path) {
						flattenKeys(row, "", rowKeys)
					}
				}
				if len(rowKeys) == 0 {
					t.Fatalf("%s -o json has no rows at %q to compare the CSV with:\n%s", c.args, c.rows[k], out)
				}
				for _, key := range recs[0] {
					if !rowKeys[key] && !slices.Contains(c.csvOnly, key) {
						t.Errorf("%s: CSV column %q is no key of the JSON rows at %q (keys %v)", c.args, key, c.rows[k], sortedSet(rowKeys))
					}
				}
			}
		})
	}
}

// checkJSONKeys checks every key of v, at path, against the vocabulary.
func checkJSONKeys(t *testing.T, args []string, v any, path string, vocab map[string]bool) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if !snakeCase.MatchString(k) {
				t.Errorf("%s: JSON key %s.%s is not snake_case", args, path, k)
			}
			if slices.Contains(dataMaps, path) {
				continue
			}
			if !vocab[k] {
				t.Errorf("%s: JSON key %q (at %q) is not in docs/vocabulary.md", args, k, path)
			}
			checkJSONKeys(t, args, child, k, vocab)
		}
	case []any:
		for _, e := range x {
			checkJSONKeys(t, args, e, path, vocab)
		}
	}
}

// checkNameValueCSV checks a CSV of name,value rows (info, index): each
// name of the summary is a key of the JSON object.
func checkNameValueCSV(t *testing.T, args []string, recs [][]string, doc any) {
	t.Helper()
	obj, ok := doc.(map[string]any)
	if !ok {
		t.Fatalf("%s: JSON is no object", args)
	}
	name := slices.Index(recs[0], "name")
	section := slices.Index(recs[0], "section")
	if name < 0 {
		t.Fatalf("%s: CSV header %q has no name column", args, recs[0])
	}
	for _, r := range recs[1:] {
		if section >= 0 && r[section] != "summary" {
			if m, ok := obj[r[section]].(map[string]any); ok {
				if _, ok := m[r[name]]; !ok {
					t.Errorf("%s: CSV row %q names no key of JSON %s", args, r, r[section])
				}
			}
			continue
		}
		if _, ok := obj[r[name]]; !ok {
			t.Errorf("%s: CSV row %q names no key of the JSON object", args, r)
		}
	}
}

// walkRows is the JSON objects at path in v: dot-separated keys, lists
// walked through.
func walkRows(v any, path string) []map[string]any {
	if list, ok := v.([]any); ok {
		var out []map[string]any
		for _, e := range list {
			out = append(out, walkRows(e, path)...)
		}
		return out
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if path == "" {
		return []map[string]any{obj}
	}
	key, rest, _ := strings.Cut(path, ".")
	return walkRows(obj[key], rest)
}

// flattenKeys adds to keys the keys of row, a nested object's keys joined
// to its own by "_" (as CSV flattens them).
func flattenKeys(row map[string]any, prefix string, keys map[string]bool) {
	for k, v := range row {
		keys[prefix+k] = true
		if m, ok := v.(map[string]any); ok {
			flattenKeys(m, prefix+k+"_", keys)
		}
	}
}

// sortedSet is the members of a set, sorted.
func sortedSet(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
