package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// cacheDirName is the directory under the user's cache directory that
// holds the indexes of dumps whose own directory is not writable.
const cacheDirName = "hprofctl"

// maxCacheBase bounds the part of a cache file's name taken from the
// dump's name, so that the whole name stays within file system limits.
const maxCacheBase = 100

// Place is where the index of one dump is looked for and written: one or
// more candidate paths, best first.
type Place struct {
	dump       string
	candidates []candidate
	ignored    []error
}

type candidate struct {
	path  string
	perm  fs.FileMode
	group int  // the group to give the file (the dump's), or -1
	mkdir bool // make the directory first (the cache directory)
}

// Locate returns the place of the index of dump. With override, the index
// is that path and nowhere else. Otherwise it is beside the dump, as dump
// + Suffix, or, when the dump's directory is not writable, in the user's
// cache directory (os.UserCacheDir()/hprofctl) under the dump's name and
// a hash of its absolute path with symbolic links resolved. An index
// beside the dump is as readable as the dump (by its group and others
// only if they may read the dump); one in the cache only by its owner.
// A dump that is not a regular file ("-" for standard input, a pipe) has
// no index: the error wraps ErrNoFile.
func Locate(dump, override string) (*Place, error) {
	if dump == "-" {
		return nil, fmt.Errorf("standard input: %w", ErrNoFile)
	}
	st, err := os.Stat(dump)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", dump, ErrNoFile)
	}
	perm, gid := st.Mode().Perm()&0o444|0o600, group(st)
	if override != "" {
		return &Place{dump: dump, candidates: []candidate{{path: override, perm: perm, group: gid}}}, nil
	}
	p := &Place{dump: dump, candidates: []candidate{{path: dump + Suffix, perm: perm, group: gid}}}
	if cache, err := cachePath(dump); err == nil {
		p.candidates = append(p.candidates, candidate{path: cache, perm: 0o600, group: -1, mkdir: true})
	}
	return p, nil
}

// LocateIn returns the place of the index of dump in directory dir, under
// the dump's name and a hash of its absolute path (as in the cache
// directory), made when missing. A dump that is not a regular file has no
// index: the error wraps ErrNoFile.
func LocateIn(dump, dir string) (*Place, error) {
	if _, err := Locate(dump, ""); err != nil {
		return nil, err
	}
	path, err := pathIn(dir, dump)
	if err != nil {
		return nil, err
	}
	return &Place{dump: dump, candidates: []candidate{{path: path, perm: 0o600, group: -1, mkdir: true}}}, nil
}

// cachePath returns the path of dump's index in the user's cache directory.
func cachePath(dump string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return pathIn(filepath.Join(dir, cacheDirName), dump)
}

// pathIn returns the path of dump's index in directory dir: the dump's
// base name (cut to maxCacheBase bytes) and a hash of its absolute path
// with symbolic links resolved.
func pathIn(dir, dump string) (string, error) {
	abs, err := resolved(dump)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	base := filepath.Base(abs)
	for len(base) > maxCacheBase {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return filepath.Join(dir, base+"-"+hex.EncodeToString(sum[:12])+Suffix), nil
}

// LockBuild waits until no other process builds an index of this place's
// dump and returns the function that ends this one's turn: processes that
// start at once build one index, the others wait and open it. busy is
// called before waiting for another process. The lock is an advisory lock
// on the dump file itself (flock; none where the system or the file
// system has none), released when the process ends however it ends.
func (p *Place) LockBuild(busy func()) (unlock func()) {
	return lockBuild(p.dump, busy)
}

// resolved returns the absolute path of dump with symbolic links
// resolved (where they can be).
func resolved(dump string) (string, error) {
	abs, err := filepath.Abs(dump)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// Paths returns the candidate paths, best first.
func (p *Place) Paths() []string {
	out := make([]string, len(p.candidates))
	for i, c := range p.candidates {
		out[i] = c.path
	}
	return out
}

// Open opens the first candidate index that exists, may be trusted and
// read, and serves want. A candidate this process may not read or trust
// is passed over (Ignored says why). When none serves it returns the error
// of the first that exists and was not passed over (an *Error: the index
// must be rebuilt, or cannot be used), or, when there is none, an error
// wrapping fs.ErrNotExist for the best candidate.
func (p *Place) Open(want Identity) (*Index, error) {
	var first error
	p.ignored = nil
	for _, c := range p.candidates {
		ix, err := Open(c.path, want)
		switch {
		case err == nil:
			// What a crashed build left beside the index goes now: no
			// writer may run here again while the index stays fresh.
			removeAbandoned(filepath.Dir(c.path), filepath.Base(c.path))
			return ix, nil
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, fs.ErrPermission), errors.Is(err, ErrUntrusted):
			p.ignored = append(p.ignored, err)
		case first == nil:
			first = err
		}
	}
	if first == nil {
		return nil, &fs.PathError{Op: "open", Path: p.candidates[0].path, Err: fs.ErrNotExist}
	}
	return nil, first
}

// Ignored returns why the last Open passed over candidates that exist: an
// index of another user, one where another user could have put it, one
// this process may not read.
func (p *Place) Ignored() []error { return p.ignored }

// Create starts writing the index at the first candidate where a file can
// be made and trusted, making the cache directory if it is that
// candidate. A candidate is passed over when another user could write in
// or replace its directory, or when its name holds another user's file
// that this process could not replace. The error, when every candidate
// fails, names each one's failure.
func (p *Place) Create(want Identity) (*Writer, error) {
	var errs []error
	for _, c := range p.candidates {
		dir := filepath.Dir(c.path)
		if c.mkdir {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if why := cmp.Or(untrustedDir(dir), unreplaceable(c.path)); why != nil {
			errs = append(errs, fmt.Errorf("%s: not written there: %w", c.path, why))
			continue
		}
		w, err := Create(c.path, want, c.perm)
		if err == nil {
			w.group = c.group
			w.dump, _ = resolved(p.dump)
			return w, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("no place to write the index: %w", errors.Join(errs...))
}
