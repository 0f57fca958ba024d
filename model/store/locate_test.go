package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// wantCachePath is the cache path of the dump at abs (absolute, links
// resolved) under cache, as docs/index-format.md gives it.
func wantCachePath(cache, abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "hprofctl", filepath.Base(abs)+"-"+hex.EncodeToString(sum[:])[:24]+".hprofctl-index")
}

// newDump writes a small dump file and returns its absolute path with
// links resolved.
func newDump(t *testing.T, dir, name string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("JAVA PROFILE 1.0.2\x00"), perm); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, perm)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestLocate(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	dump := newDump(t, dir, "heap.hprof", 0o644)
	place, err := Locate(dump, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dump + ".hprofctl-index", wantCachePath(cache, dump)}
	if got := place.Paths(); !reflect.DeepEqual(got, want) {
		t.Errorf("Paths() = %q, want %q", got, want)
	}

	// A link to the dump: the index beside the link, the cache entry of
	// the dump.
	link := filepath.Join(t.TempDir(), "link.hprof")
	if err := os.Symlink(dump, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	place, err = Locate(link, "")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{link + ".hprofctl-index", wantCachePath(cache, dump)}
	if got := place.Paths(); !reflect.DeepEqual(got, want) {
		t.Errorf("Paths() of a link = %q, want %q", got, want)
	}

	place, err = Locate(dump, "/elsewhere/my.index")
	if err != nil {
		t.Fatal(err)
	}
	if got := place.Paths(); !reflect.DeepEqual(got, []string{"/elsewhere/my.index"}) {
		t.Errorf("Paths() with an override = %q", got)
	}
}

// TestLocateLongName checks that the cache name keeps at most 100 bytes of
// the dump's name, cut between characters.
func TestLocateLongName(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	name := strings.Repeat("é", 60) + ".hprof" // 126 bytes
	dump := newDump(t, t.TempDir(), name, 0o644)
	place, err := Locate(dump, "")
	if err != nil {
		t.Fatal(err)
	}
	got := filepath.Base(place.Paths()[1])
	sum := sha256.Sum256([]byte(dump))
	want := strings.Repeat("é", 50) + "-" + hex.EncodeToString(sum[:12]) + Suffix
	if got != want || !utf8.ValidString(got) {
		t.Errorf("cache name %q, want %q", got, want)
	}
}

func TestLocateNoFile(t *testing.T) {
	for _, dump := range []string{"-", t.TempDir()} {
		if _, err := Locate(dump, ""); !errors.Is(err, ErrNoFile) {
			t.Errorf("Locate(%q): %v, want ErrNoFile", dump, err)
		}
	}
	if _, err := Locate(filepath.Join(t.TempDir(), "absent"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Locate(absent): %v, want fs.ErrNotExist", err)
	}
}

// TestIndexPermissions checks that an index beside a dump is readable by
// whom the dump is, and always by its owner.
func TestIndexPermissions(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, c := range []struct{ dump, index os.FileMode }{
		{0o644, 0o644},
		{0o640, 0o640},
		{0o600, 0o600},
		{0o444, 0o644},
		{0o666, 0o644},
		{0o404, 0o604},
	} {
		dump := newDump(t, t.TempDir(), "heap.hprof", c.dump)
		indexDump(t, dump)
		st, err := os.Stat(dump + Suffix)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != c.index {
			t.Errorf("dump %v: index %v, want %v", c.dump, st.Mode().Perm(), c.index)
		}
	}
}

// TestPlaceOpenOrder puts valid, stale and missing indexes in the two
// places and checks which Place.Open takes.
func TestPlaceOpenOrder(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dump := newDump(t, t.TempDir(), "heap.hprof", 0o644)
	fp, err := FingerprintFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	fresh := Identity{Content: 1, Dump: fp}
	old := Identity{Content: 1, Dump: Fingerprint{Size: 1}}
	beside, cached := dump+Suffix, wantCachePath(cache, dump)
	os.MkdirAll(filepath.Dir(cached), 0o700)
	put := func(path string, id *Identity) {
		t.Helper()
		os.Remove(path)
		if id == nil {
			return
		}
		w, err := Create(path, *id, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	place, err := Locate(dump, "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name           string
		beside, cached *Identity
		want           string
		err            error
	}{
		{"both fresh", &fresh, &fresh, beside, nil},
		{"only the cache", nil, &fresh, cached, nil},
		{"stale beside, fresh cache", &old, &fresh, cached, nil},
		{"stale beside, none cached", &old, nil, "", ErrStale},
		{"fresh beside, stale cache", &fresh, &old, beside, nil},
		{"none", nil, nil, "", fs.ErrNotExist},
	}
	for _, c := range cases {
		put(beside, c.beside)
		put(cached, c.cached)
		ix, err := place.Open(fresh)
		if c.err != nil {
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), beside) {
				t.Errorf("%s: %v, want %v naming %s", c.name, err, c.err, beside)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ix.Path() != c.want {
			t.Errorf("%s: opened %s, want %s", c.name, ix.Path(), c.want)
		}
		ix.Close()
	}
}

func TestPlaceCreateFails(t *testing.T) {
	dump := newDump(t, t.TempDir(), "heap.hprof", 0o644)
	override := filepath.Join(t.TempDir(), "no-such-dir", "x.index")
	place, err := Locate(dump, override)
	if err != nil {
		t.Fatal(err)
	}
	_, err = place.Create(Identity{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no place to write the index") {
		t.Errorf("Create in a missing directory: %v", err)
	}
}
