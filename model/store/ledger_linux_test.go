package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeVouched writes the sample index at path as the build does, for
// the ledger to record, with the ledger in a directory of the test's.
func writeVouched(t *testing.T, path string) {
	t.Helper()
	s := newSample()
	s.vouch = true
	s.write(t, path, testID)
}

// isWritten opens the index at path and reports Written.
func isWritten(t *testing.T, path string) bool {
	t.Helper()
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	return ix.Written()
}

// TestWrittenIndex opens an index the writer vouched for without its
// checks, and the same index changed in place, or one no writer vouched
// for, with them.
func TestWrittenIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "vouched")
	writeVouched(t, path)
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Written() {
		t.Fatal("an index just written and vouched for is not Written")
	}
	newSample().check(t, ix) // the string tables' ends are taken from their last offsets
	// The elements are not checked: "u32" holds 1 and more, which an
	// index that was not vouched for fails (below).
	if _, err := ArrayOf[uint32](ix, "u32", Elements{Below: 1}); err != nil {
		t.Errorf("a written index's elements were checked: %v", err)
	}
	ix.Close()

	plain := filepath.Join(dir, "plain")
	newSample().write(t, plain, testID)
	if isWritten(t, plain) {
		t.Error("an index no writer vouched for is Written")
	}
	if err := readElements(plain, "u32", Elements{Below: 1}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("u32 elements checked below 1 in an index not vouched for: %v, want ErrCorrupt", err)
	}

	// One byte of a section changed, then changed back: the bytes are
	// those written again, but the file is checked, and a change kept is
	// found.
	u32, _ := ix.Section("u32")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [1]byte
	f.ReadAt(b[:], int64(u32.Offset))
	f.WriteAt([]byte{b[0] ^ 1}, int64(u32.Offset))
	if isWritten(t, path) {
		t.Error("an index changed in place is still Written")
	}
	if err := openAndRead(path, testID); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `"u32"`) {
		t.Errorf("a byte of u32 changed in a vouched index: %v, want ErrCorrupt in u32", err)
	}
	f.WriteAt(b[:], int64(u32.Offset))
	if isWritten(t, path) {
		t.Error("an index changed in place and back is still Written")
	}
}

// readElements opens the index at path and reads uint32 section name
// against want.
func readElements(path, name string, want Elements) error {
	ix, err := Open(path, testID)
	if err != nil {
		return err
	}
	defer ix.Close()
	_, err = ArrayOf[uint32](ix, name, want)
	return err
}

// TestLedgerTrust passes over a ledger others could write in, and entries
// others could write or that say another state.
func TestLedgerTrust(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	path := filepath.Join(t.TempDir(), "vouched")
	writeVouched(t, path)
	ledger := filepath.Join(cache, cacheDirName, ledgerDirName)
	entries, err := os.ReadDir(ledger)
	if err != nil || len(entries) != 1 {
		t.Fatalf("ledger %s: %v, %d entries, want 1", ledger, err, len(entries))
	}
	entry := filepath.Join(ledger, entries[0].Name())
	if !isWritten(t, path) {
		t.Fatal("an index just written and vouched for is not Written")
	}
	for _, c := range []struct {
		what         string
		change, undo func() error
	}{
		{"ledger writable by others",
			func() error { return os.Chmod(ledger, 0o777) }, func() error { return os.Chmod(ledger, 0o700) }},
		{"entry writable by others",
			func() error { return os.Chmod(entry, 0o666) }, func() error { return os.Chmod(entry, 0o600) }},
		{"entry for another state", rewriteEntry(t, entry, func(state string) string {
			fields := strings.Fields(state)
			fields[4] += "1" // the status change time
			return strings.Join(fields, " ") + "\n"
		}), rewriteEntry(t, entry, func(state string) string { return state })},
		{"entry of another version", rewriteEntry(t, entry, func(state string) string {
			return state + "more\n"
		}), rewriteEntry(t, entry, func(state string) string { return state })},
	} {
		if err := c.change(); err != nil {
			t.Fatal(err)
		}
		if isWritten(t, path) {
			t.Errorf("%s: the index is Written", c.what)
		}
		if err := c.undo(); err != nil {
			t.Fatal(err)
		}
		if !isWritten(t, path) {
			t.Fatalf("%s undone: the index is not Written", c.what)
		}
	}
}

// rewriteEntry returns a change of the ledger entry at name whose state
// line becomes what edit makes of the original one.
func rewriteEntry(t *testing.T, name string, edit func(state string) string) func() error {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	state := lines[2]
	return func() error {
		return os.WriteFile(name, []byte(lines[0]+lines[1]+edit(state)), 0o600)
	}
}

// TestLedgerPrune drops the entries of indexes removed or changed since
// when another is written, and keeps the others.
func TestLedgerPrune(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	entryOf := func(path string) string {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := stateOf(st)
		return s.entryName()
	}
	var names []string
	for _, n := range []string{"kept", "removed", "changed"} {
		writeVouched(t, filepath.Join(dir, n))
		names = append(names, entryOf(filepath.Join(dir, n)))
	}
	kept, removed, changed := names[0], names[1], names[2]
	os.Remove(filepath.Join(dir, "removed"))
	if err := os.Chmod(filepath.Join(dir, "changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeVouched(t, filepath.Join(dir, "new"))
	entries, err := os.ReadDir(filepath.Join(cache, cacheDirName, ledgerDirName))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{kept, entryOf(filepath.Join(dir, "new"))}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ledger after removing %s and changing %s: %v, want %v", removed, changed, got, want)
	}
}

// TestVouchVerifies: Vouch enters an index no writer vouched for into the
// ledger once every section is sound, and not when one is not.
func TestVouchVerifies(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	vouch := func(path string) error {
		ix, err := Open(path, testID)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		return ix.Vouch()
	}
	sound := filepath.Join(dir, "sound")
	newSample().write(t, sound, testID)
	if err := vouch(sound); err != nil || !isWritten(t, sound) {
		t.Errorf("a sound index vouched for: %v, Written %v; want it entered", err, isWritten(t, sound))
	}
	damaged := filepath.Join(dir, "damaged")
	newSample().write(t, damaged, testID)
	ix, err := Open(damaged, testID)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := ix.Section("names")
	ix.Close()
	f, err := os.OpenFile(damaged, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0xFF}, int64(names.Offset))
	f.Close()
	if err := vouch(damaged); !errors.Is(err, ErrCorrupt) || isWritten(t, damaged) {
		t.Errorf("a damaged index vouched for: %v, Written %v; want ErrCorrupt, not entered", err, isWritten(t, damaged))
	}
}
