package session

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

// TestOverBudgetSaysWhatStayedInMemory: when a table past the budget gets
// no scratch file (the file size limit refuses its blocks here, as a full
// disk would), the build's note says how much stayed in memory past
// --memory, where the scratch files were to go, why, and what to do.
func TestOverBudgetSaysWhatStayedInMemory(t *testing.T) {
	dir := t.TempDir()
	defer bigmem.SetBudget(1, dir)()
	if note := overBudget(1, dir); note != "" {
		t.Fatalf("before any table, overBudget = %q, want none", note)
	}
	var limit unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	tight := limit
	tight.Cur = 1 << 20
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &tight); err != nil {
		t.Skip("the file size limit cannot be lowered here:", err)
	}
	table := bigmem.Make[uint32](1 << 20)
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	defer bigmem.Free(table)
	note := overBudget(1, dir)
	for _, part := range []string{"tables of 4.0 MiB in all stayed in memory past --memory 1 B: no scratch file in " + dir, "file too large", "--index-dir"} {
		if !strings.Contains(note, part) {
			t.Errorf("overBudget = %q, lacks %q", note, part)
		}
	}
}
