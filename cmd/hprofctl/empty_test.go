package main

import (
	"strings"
	"testing"
)

// TestEmptyResults checks what each format prints when nothing matches:
// a table is one line saying so, CSV its header alone, JSON an empty
// array. No class of the fixture is named no.Such; fixture.WeakOnly is
// reachable only through a WeakReference (testdata/jvm/EXPECTED.md), so no
// strong path leads to it.
func TestEmptyResults(t *testing.T) {
	path := fixturePath(t, "jdk17-default.hprof.gz")
	for _, c := range []struct {
		args                []string
		table, csv, jsonOut string
	}{
		{[]string{"histo", "--match", `^no\.Such$`},
			"no class with objects matches\n", "instances,shallow_bytes,class\n", "[]\n"},
		{[]string{"dominators", "--by-class", "--class", `^no\.Such$`},
			"no class in the dominator tree matches\n", "objects,shallow_bytes,retained_bytes,class\n", "[]\n"},
		{[]string{"retainers", "--class", `^fixture\.WeakOnly$`},
			"no path from a GC root to the target (unreachable)\n", "path,objects,via,object_id,class,root\n", ""},
	} {
		name := strings.Join(c.args, " ")
		table, err := runCLI(t, append(c.args, path)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(table, c.table) || strings.Contains(table, "┌") {
			t.Errorf("%s: table\n%s\nwant it to start with %q and hold no table", name, table, c.table)
		}
		csv, err := runCLI(t, append(c.args, path, "-o", "csv")...)
		if err != nil || csv != c.csv {
			t.Errorf("%s -o csv: %q (%v), want %q", name, csv, err, c.csv)
		}
		if c.jsonOut == "" {
			continue
		}
		js, err := runCLI(t, append(c.args, path, "-o", "json")...)
		if err != nil || js != c.jsonOut {
			t.Errorf("%s -o json: %q (%v), want %q", name, js, err, c.jsonOut)
		}
	}
}
