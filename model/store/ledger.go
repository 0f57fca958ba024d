package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The ledger is a directory in the user's cache directory with one small
// file for each index file this user's hprofctl wrote: the index's path
// and its state (stateOf: device, inode, size, and the modification and
// status change times to the nanosecond), taken from the open file just
// after it was renamed to its name. An index opened with the state the
// ledger holds for it is as it was written: no process changed its bytes
// since (a change sets its status change time, which no one can set
// back), so its sections are not checked again (Index.Written).
//
// The ledger is trusted as the indexes are: its directory must be this
// user's and no other user's to write (untrustedDir), and each entry a
// regular file of this user's. Writing to it is best effort: an index
// whose entry could not be written is checked when read, as any other.

// ledgerDirName is the ledger's directory under CacheDir.
const ledgerDirName = "written"

// ledgerHeader starts every ledger entry; the entry's version is in it.
const ledgerHeader = "hprofctl index written v1\n"

// maxLedgerEntry bounds what is read of a ledger entry: a path and a line
// of numbers.
const maxLedgerEntry = 8 << 10

// maxLedgerPrune bounds the entries looked at for pruning when one is
// written.
const maxLedgerPrune = 4096

// fileState is what identifies the contents of a file without reading them:
// any change to the file changes ctime.
type fileState struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since 1970
}

// line writes s as the ledger keeps it.
func (s fileState) line() string {
	return fmt.Sprintf("%d %d %d %d %d\n", s.dev, s.ino, s.size, s.mtime, s.ctime)
}

// entryName is the name of the ledger entry of the file in state s: a file
// is one entry, however many times it is rewritten in place.
func (s fileState) entryName() string {
	return fmt.Sprintf("%x-%x", s.dev, s.ino)
}

// ledgerDir returns the ledger's directory.
func ledgerDir() (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, ledgerDirName), nil
}

// recordWritten enters the index file at path, in state s as this process
// wrote it, into the ledger, and removes the entries of files that are no
// longer as their entries say. Failures are ignored: the index is then
// checked when read.
func recordWritten(path string, s fileState) {
	dir, err := ledgerDir()
	if err != nil || os.MkdirAll(dir, 0o700) != nil || untrustedDir(dir) != nil {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil || strings.ContainsRune(abs, '\n') {
		return
	}
	pruneLedger(dir, s.entryName())
	f, err := os.CreateTemp(dir, ".entry-*")
	if err != nil {
		return
	}
	_, err = io.WriteString(f, ledgerHeader+abs+"\n"+s.line())
	if err = errors.Join(err, f.Close()); err != nil || os.Rename(f.Name(), filepath.Join(dir, s.entryName())) != nil {
		os.Remove(f.Name())
	}
}

// inLedger reports whether the ledger has the file in state s: this
// user's hprofctl wrote it, and it has not changed since, whatever path it
// is reached by now.
func inLedger(s fileState) bool {
	dir, err := ledgerDir()
	if err != nil || untrustedDir(dir) != nil {
		return false
	}
	_, got, ok := readLedgerEntry(filepath.Join(dir, s.entryName()))
	return ok && got == s
}

// readLedgerEntry reads the ledger entry at name: the path it names and
// its state. It reports false for anything but a regular file of this
// user's that no one else may write, holding an entry.
func readLedgerEntry(name string) (string, fileState, bool) {
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || !ownedByMe(st) || st.Mode().Perm()&0o022 != 0 || st.Size() > maxLedgerEntry {
		return "", fileState{}, false
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", fileState{}, false
	}
	rest, ok := strings.CutPrefix(string(b), ledgerHeader)
	path, line, found := strings.Cut(rest, "\n")
	if !ok || !found {
		return "", fileState{}, false
	}
	var s fileState
	if _, err := fmt.Sscanf(line, "%d %d %d %d %d\n", &s.dev, &s.ino, &s.size, &s.mtime, &s.ctime); err != nil || s.line() != line {
		return "", fileState{}, false
	}
	return path, s, true
}

// pruneLedger removes the ledger entries, other than keep, whose files
// are gone or changed, looking at no more than maxLedgerPrune of them.
func pruneLedger(dir, keep string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(maxLedgerPrune)
	d.Close()
	for _, name := range names {
		if name == keep || strings.HasPrefix(name, ".entry-") {
			continue
		}
		entry := filepath.Join(dir, name)
		path, s, ok := readLedgerEntry(entry)
		if !ok || !stateIs(path, s) {
			os.Remove(entry)
		}
	}
}

// stateIs reports whether the file at path has state s.
func stateIs(path string, s fileState) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	got, ok := stateOf(st)
	return ok && got == s
}
