package main

import (
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestErrorsInWords checks that command-line mistakes are answered in
// words: what was given, what was expected, and where to go instead.
func TestErrorsInWords(t *testing.T) {
	oom := fixturePath(t, "jdk17-oom.hprof.gz")
	jstack := filepath.Join(repoRoot(t), "testdata", "threads", "jdk17-busy.jstack.txt")
	jsonDump := filepath.Join(repoRoot(t), "testdata", "threads", "jdk25-busy.json")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"show", oom, "zzz"}, []string{`object id "zzz"`, "0x", "decimal"}},
		{[]string{"show", oom, "0x1ffffffffffffffff"}, []string{"larger than any 64-bit id"}},
		{[]string{"retainers", "--object", "x1", oom}, []string{`--object "x1"`, "hexadecimal"}},
		{[]string{"histo", "--top", "abc", oom}, []string{`--top "abc"`, "whole number"}},
		{[]string{"histo", "--top", "-3", oom}, []string{"--top -3", "0 or more"}},
		{[]string{"show", "--elements", "-1", oom, "0x1"}, []string{"--elements -1", "0 or more"}},
		{[]string{"dominators", "--bytes=maybe", oom}, []string{`--bytes "maybe"`, "true or false"}},
		{[]string{"info"}, []string{"info needs FILE", "usage: hprofctl info FILE"}},
		{[]string{"info", oom, oom}, []string{"info takes FILE", "2 arguments"}},
		{[]string{"diff", oom}, []string{"diff takes OLD NEW", "got only"}},
		{[]string{"version", "x"}, []string{"version takes no arguments"}},
		{[]string{"info", jstack}, []string{"neither a heap dump", "deadlocks", "threads"}},
		{[]string{"histo", jsonDump}, []string{"JSON thread dump", "deadlocks", "threads"}},
		{[]string{"sites", jstack}, []string{"hprofctl deadlocks or hprofctl threads"}},
	} {
		_, err := runCLI(t, c.args...)
		if err == nil {
			t.Errorf("hprofctl %s: no error", strings.Join(c.args, " "))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("hprofctl %s: %q, want it to say %q", strings.Join(c.args, " "), err, w)
			}
		}
		for _, bad := range []string{"strconv.", "arg(s)", "magic"} {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("hprofctl %s: %q speaks of %s", strings.Join(c.args, " "), err, bad)
			}
		}
	}
	// --dump takes -1 (the last dump): a signed flag stays allowed.
	if _, err := runCLI(t, "histo", "--dump", "-1", "--top", "1", oom); err != nil {
		t.Errorf("--dump -1: %v", err)
	}
}

// TestVersion checks --version and the version command, and the version
// the build information gives.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, err := runCLI(t, args...)
		if err != nil || !strings.HasPrefix(out, "hprofctl ") || strings.Count(out, "\n") != 1 {
			t.Errorf("hprofctl %s: %q, %v; want one line hprofctl VERSION", args[0], out, err)
		}
	}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.2"}}, "v1.4.2"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127014210-e538d26a1b2c"}}, "v0.0.0-20261127014210-e538d26a1b2c"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "e538d26a1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.modified", Value: "true"}}}, "devel-e538d26a1b2c+dirty"},
	} {
		if got := versionFrom(c.bi); got != c.want {
			t.Errorf("versionFrom(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}

// TestTableWidth checks when tables fit the terminal: never with --wide,
// never when standard output is no terminal (as under go test), and then
// a table is as wide as its cells.
func TestTableWidth(t *testing.T) {
	if w := (&globalFlags{wide: true}).tableWidth(); w != 0 {
		t.Errorf("--wide: width %d, want 0 (whole tables)", w)
	}
	if w := (&globalFlags{}).tableWidth(); w != 0 {
		t.Errorf("standard output is no terminal, yet tables fit %d columns", w)
	}
	long := `^fixture\.Layout`
	out, err := runCLI(t, "histo", "--match", long, "--top", "3", fixturePath(t, "jdk17-default.hprof.gz"))
	if err != nil || strings.Contains(out, "…") {
		t.Errorf("a table written to no terminal is cut: %v\n%s", err, out)
	}
}
