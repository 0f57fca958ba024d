package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/internal/testshared"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
)

// runCLI runs hprofctl with args in-process and returns what it printed.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// runJSON runs hprofctl with -o json and decodes its output into v.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, err := runCLI(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatalf("hprofctl %s: %v", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("hprofctl %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
}

type histoRow struct {
	Class        string `json:"class"`
	Instances    int64  `json:"instances"`
	ShallowBytes int64  `json:"shallow_bytes"`
}

// histoByClass runs `hprofctl histo` and sums its rows by class name.
func histoByClass(t *testing.T, args ...string) map[string]histoRow {
	t.Helper()
	var rows []histoRow
	runJSON(t, &rows, append([]string{"histo"}, args...)...)
	m := map[string]histoRow{}
	for _, r := range rows {
		s := m[r.Class]
		s.Class = r.Class
		s.Instances += r.Instances
		s.ShallowBytes += r.ShallowBytes
		m[r.Class] = s
	}
	return m
}

// jvmHistoLine matches a class line of `jmap -histo` or
// `jcmd GC.class_histogram` output, with or without the rank column.
var jvmHistoLine = regexp.MustCompile(`^\s*(?:\d+:)?\s+(\d+)\s+(\d+)\s+(\S+)`)

// readJVMHistogram reads a histogram the JVM printed, summed by Java class
// name; the JVM's internal pseudo-classes (<methodKlass> and the like) are
// left out.
func readJVMHistogram(t *testing.T, path string) map[string]histoRow {
	t.Helper()
	f, err := input.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]histoRow{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		g := jvmHistoLine.FindStringSubmatch(sc.Text())
		if g == nil || strings.HasPrefix(g[3], "<") {
			continue
		}
		n, _ := strconv.ParseInt(g[1], 10, 64)
		b, _ := strconv.ParseInt(g[2], 10, 64)
		name := model.JavaClassName(g[3])
		s := m[name]
		s.Class = name
		s.Instances += n
		s.ShallowBytes += b
		m[name] = s
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(m) == 0 {
		t.Fatalf("%s: no histogram lines", path)
	}
	return m
}

// repoRoot is the directory holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// sharedCorpus returns the shared corpus directory (see testshared).
func sharedCorpus(t *testing.T) string {
	t.Helper()
	return testshared.Path(t, "corpus")
}
