//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model/store"
)

// TestOutputToFullDevice: every command's answer written to /dev/full (a
// device that refuses every write with "no space left on device") exits
// non-zero and says so, in each output format.
func TestOutputToFullDevice(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	dump := plainFixture(t, t.TempDir(), "jdk17-oom")
	idx := t.TempDir()
	commands := [][]string{
		{"histo", dump},
		{"info", dump},
		{"top", dump},
		{"strings", dump},
		{"show", dump, "0xff8d6548"}, // the fixture.OomMain class object
		{"retainers", dump, "--class", "OomMain"},
		{"index", dump},
	}
	for _, args := range commands {
		for _, format := range []string{"table", "json", "csv"} {
			cmd := process(nil, append([]string{"--index-dir", idx, "-o", format}, args...)...)
			cmd.Stdout = full
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if err == nil || !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("%s -o %s > /dev/full: %v, said %q; want a failure naming the full device", args[0], format, err, stderr.String())
			}
		}
	}
}

// TestIndexNotWritten: an index that cannot be written (a file size limit
// of 64 KiB, far below the index's size) fails the index command with one
// message naming the cause once, and leaves no file behind.
func TestIndexNotWritten(t *testing.T) {
	dir := t.TempDir()
	dump := plainFixture(t, dir, "jdk17-oom")
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd := process(nil, "index", dump)
	cmd.Path = "/bin/sh"
	cmd.Args = append([]string{"sh", "-c", `ulimit -f 64 && exec "$0" "$@"`, self, "--"}, cmd.Args[2:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	said := stderr.String()
	if err == nil || !strings.Contains(said, "not written") || strings.Count(said, "file too large") != 1 {
		t.Fatalf("index under a 64 KiB file size limit: %v; said %q; want one failure naming the cause once", err, said)
	}
	if strings.Count(strings.TrimSpace(said), "\n") != 0 {
		t.Errorf("said %d lines, want one: %q", strings.Count(said, "\n"), said)
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote %q on standard output", stdout.String())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), store.Suffix) {
			t.Errorf("left %s behind", e.Name())
		}
	}
}
