package store

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// dumpSection is the blob in which an index written by Place.Create
// records the absolute path of its dump, so that a directory of indexes
// (the cache) can be listed and pruned by what became of their dumps.
const dumpSection = "store.dump"

// CacheDir returns the directory of the indexes of dumps whose own
// directory could not hold them: the user's cache directory's hprofctl.
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, cacheDirName), nil
}

// State is what became of the dump an index describes.
type State string

// The states of a listed index. Only a Fresh index serves its dump; Prune
// removes every other.
const (
	Fresh      State = "fresh"
	Stale      State = "stale"       // the dump changed since
	DumpGone   State = "dump gone"   // the dump is no longer there
	NoRecord   State = "no record"   // the index does not name its dump (older hprofctl)
	OldVersion State = "old version" // of another content or format version
	Unusable   State = "unusable"    // damaged, not an index, or not trusted
	Abandoned  State = "abandoned"   // a temporary file a killed build left
	Building   State = "being built" // a temporary file a running build holds
)

// Listed describes one index file of a directory.
type Listed struct {
	// Path is the file, Bytes its size, Modified when it was written.
	Path     string
	Bytes    int64
	Modified time.Time
	// Dump is the dump it describes, when it records it.
	Dump string
	// State is what became of the dump; Detail says more for Unusable.
	State  State
	Detail string
}

// List describes the index files in dir (and the temporary files of their
// builds), in name order, judging each against content, the content
// version this hprofctl writes. Reading a dump's fingerprint costs a few
// reads of it.
func List(dir string, content uint32) ([]Listed, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Listed
	for _, ent := range ents {
		name := ent.Name()
		path := filepath.Join(dir, name)
		info, err := ent.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		l := Listed{Path: path, Bytes: info.Size(), Modified: info.ModTime()}
		switch {
		case strings.HasSuffix(name, Suffix):
			l.Dump, l.State, l.Detail = judge(path, content)
		case isTempName(name):
			l.State = Building
			if lockFree(path) {
				l.State = Abandoned
			}
		default:
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// isTempName reports whether name is that of a Writer's temporary file.
func isTempName(name string) bool {
	i := strings.Index(name, Suffix+".")
	if i < 0 {
		return false
	}
	digits, ok := strings.CutSuffix(name[i+len(Suffix)+1:], tempSuffix)
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

// judge tells what became of the dump of the index at path.
func judge(path string, content uint32) (dump string, state State, detail string) {
	h, dump, err := describe(path)
	switch {
	case errors.Is(err, ErrVersion):
		return "", OldVersion, err.Error()
	case err != nil:
		return "", Unusable, err.Error()
	case h.content != content:
		return dump, OldVersion, fmt.Sprintf("content version %d, this hprofctl writes %d", h.content, content)
	case dump == "":
		return "", NoRecord, ""
	}
	fp, err := FingerprintFile(dump)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dump, DumpGone, ""
	case err != nil:
		return dump, Unusable, err.Error()
	case !h.dump.SameContent(fp):
		return dump, Stale, staleDetail(h.dump, fp)
	}
	return dump, Fresh, ""
}

// describe reads the header, the section table and the dump's record of
// the index at path, checking them and the file's trust as Open does.
func describe(path string) (header, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return header{}, "", err
	}
	if why := untrustedFile(path, st); why != nil {
		return header{}, "", &Error{Path: path, Reason: ErrUntrusted, Detail: why.Error()}
	}
	h, entries, err := readLayout(f, path, st.Size())
	if err != nil {
		return header{}, "", err
	}
	for _, e := range entries {
		if e.name != dumpSection || e.kind != KindBlob {
			continue
		}
		b := make([]byte, min(e.length, 1<<16))
		if _, err := f.ReadAt(b, int64(e.offset)); err != nil || uint64(len(b)) != e.length || crc32.Checksum(b, castagnoli) != e.crc {
			return h, "", &Error{Path: path, Section: dumpSection, Offset: int64(e.offset), Reason: ErrCorrupt, Detail: "the dump's record does not match its checksum"}
		}
		return h, string(b), nil
	}
	return h, "", nil
}

// Prune removes the files of listed that serve no dump (every state but
// Fresh and Building) and belong to this user, and returns those it
// removed. A file that cannot be removed is kept, and its error joined
// to the one returned.
func Prune(listed []Listed) ([]Listed, error) {
	var (
		removed []Listed
		errs    []error
	)
	for _, l := range listed {
		if l.State == Fresh || l.State == Building {
			continue
		}
		if st, err := os.Lstat(l.Path); err != nil || !ownedByMe(st) {
			continue
		}
		if l.State == Abandoned {
			if removeIfUnlocked(l.Path) {
				removed = append(removed, l)
			}
			continue
		}
		if err := os.Remove(l.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, l)
	}
	return removed, errors.Join(errs...)
}
