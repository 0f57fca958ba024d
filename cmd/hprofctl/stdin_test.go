package main

import (
	"os"
	"strings"
	"testing"
)

// TestStdinAnswersAsFile: every question that reads the dump twice (field
// names on paths, field values, thread names and states, String values)
// answers from standard input what it answers from the file, and the copy
// kept of standard input is gone after the run, failed runs included.
func TestStdinAnswersAsFile(t *testing.T) {
	dump := fixturePath(t, "jdk17-oom.hprof.gz")
	var ids []struct {
		ObjectID string `json:"object_id"`
	}
	runJSON(t, &ids, "dominators", "--top", "1", dump)
	if len(ids) != 1 {
		t.Fatalf("dominators --top 1 lists %d objects", len(ids))
	}
	for _, question := range [][]string{
		{"retainers", "--class", `^fixture\.OomChunk$`, "-o", "json"},
		{"leaks", "-o", "json"},
		{"show", "--path", "--referrers", "-o", "json", "FILE", ids[0].ObjectID},
		{"threads", "-o", "json"},
		{"strings", "-o", "json"},
		{"collections", "-o", "json"},
	} {
		withFile := func(file string) []string {
			args := append([]string{}, question...)
			for k, a := range args {
				if a == "FILE" {
					args[k] = file
					return args
				}
			}
			return append(args, file)
		}
		want, err := runCLI(t, withFile(dump)...)
		if err != nil {
			t.Fatalf("%s: %v", question, err)
		}
		tmp := t.TempDir()
		in, err := os.Open(dump)
		if err != nil {
			t.Fatal(err)
		}
		cmd := process([]string{"TMPDIR=" + tmp}, withFile("-")...)
		cmd.Stdin = in
		out, err := cmd.Output()
		in.Close()
		if err != nil {
			t.Fatalf("%s from standard input: %v", question, err)
		}
		if string(out) != want {
			t.Errorf("%s: the answer from standard input differs from the file's:\n%s\nwant\n%s", question[0], out, want)
		}
		if question[0] == "retainers" && (strings.Contains(want, `"via": "?"`) || !strings.Contains(want, `"via": "elementData"`)) {
			t.Errorf("retainers names no field: %s", want)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s left %s in TMPDIR", question[0], left[0].Name())
		}
	}
	tmp := t.TempDir()
	in, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := process([]string{"TMPDIR=" + tmp}, "show", "-", "0x1")
	cmd.Stdin = in
	if err := cmd.Run(); err == nil {
		t.Error("show - 0x1: no error for an id the dump lacks")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("a failed run left %s in TMPDIR", left[0].Name())
	}
}
