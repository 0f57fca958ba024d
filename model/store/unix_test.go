//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user and group the read-only test runs its writer as when
// the tests run as root, for whom directory permissions do not bite.
const nobody = 65534

// TestReadOnlyDirFallsBackToCache indexes a dump in a directory its user
// cannot write: the index goes to the cache directory and is found there.
// Run as root, the writer is a copy of the test binary run as user nobody.
func TestReadOnlyDirFallsBackToCache(t *testing.T) {
	root, err := os.MkdirTemp("", "store-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	dumps := filepath.Join(root, "dumps")
	cache := filepath.Join(root, "cache")
	t.Cleanup(func() {
		os.Chmod(dumps, 0o755)
		os.RemoveAll(root)
	})
	for _, dir := range []string{root, dumps, cache} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
	}
	dump := newDump(t, dumps, "heap.hprof", 0o644)
	if err := os.Chmod(dumps, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", cache)

	var report string
	if os.Geteuid() != 0 {
		report, err = writeAndOpenPlace(dump)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		bin := filepath.Join(root, "store.test")
		if err := copyFile(os.Args[0], bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(cache, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), childEnv+"=place", childPathEnv+"="+dump)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.Output()
		if errors.Is(err, syscall.EPERM) {
			t.Skip("cannot run a process as another user:", err)
		}
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("writer run as nobody: %v\n%s", err, stderr)
		}
		report = string(out)
	}

	cached := wantCachePath(cache, dump)
	for _, want := range []string{
		"beside=open " + dump + Suffix + ".",
		"permission denied\n",
		"written=" + cached + "\n",
		"opened=" + cached + "\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report %q lacks %q", report, want)
		}
	}
	if _, err := os.Stat(dump + Suffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an index beside the dump: %v", err)
	}
	for path, mode := range map[string]os.FileMode{filepath.Dir(cached): os.ModeDir | 0o700, cached: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode() != mode {
			t.Errorf("%s: %v, %v; want mode %v", path, st.Mode(), err, mode)
		}
	}
	// This process finds the index in the cache too when it wrote it; as
	// root it passes over the index of user nobody.
	err = openForDumpContent(dump, 1)
	if os.Geteuid() == 0 && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("root opened user nobody's index: %v, want it passed over", err)
	} else if os.Geteuid() != 0 && err != nil {
		t.Error(err)
	}
}

// openForDumpContent opens the index of dump for content version content.
func openForDumpContent(dump string, content uint32) error {
	fp, err := FingerprintFile(dump)
	if err != nil {
		return err
	}
	place, err := Locate(dump, "")
	if err != nil {
		return err
	}
	ix, err := place.Open(Identity{Content: content, Dump: fp})
	if err != nil {
		return err
	}
	return ix.Close()
}

func copyFile(from, to string, perm os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestShrunkAfterOpen cuts an index while it is open: the check of a
// section past the new end, which reads the file and not the mapping,
// reports corruption, whether it reads the section on one goroutine or in
// pieces on several.
func TestShrunkAfterOpen(t *testing.T) {
	defer func(old int64) { checksumPiece = old }(checksumPiece)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, piece := range []int64{checksumPiece, 64 << 10} {
		checksumPiece = piece
		path := filepath.Join(t.TempDir(), "shrunk")
		w, err := Create(path, testID, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := WriteArray(w, "big", make([]uint64, 1<<19)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(path, testID)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if err := os.Truncate(path, 8192); err != nil {
			t.Fatal(err)
		}
		_, err = Array[uint64](ix, "big")
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), ": EOF: the file was cut short after it was opened") {
			t.Errorf("pieces of %d bytes: reading a section cut after Open: %v, want ErrCorrupt saying it was cut short", piece, err)
		}
	}
}

// TestAbandonedTempFiles checks which temporary files a new Writer removes:
// only unlocked ones of the same index, however young.
func TestAbandonedTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "heap.hprof"+Suffix)
	running, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer running.Abort()
	files := map[string]bool{ // name: removed
		filepath.Base(running.tmp):                  false, // locked by a running writer
		"heap.hprof" + Suffix + ".123456.tmp":       true,
		"heap.hprof" + Suffix + ".777.tmp":          true,  // just made
		"heap.hprof" + Suffix + ".12ab.tmp":         false, // not a Writer's name
		"heap.hprof" + Suffix + ".tmp":              false,
		"other.hprof" + Suffix + ".123.tmp":         false, // another index
		"heap.hprof" + Suffix + ".123456.tmp.saved": false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if name != filepath.Base(running.tmp) {
			os.WriteFile(p, []byte("partial"), 0o600)
		}
	}
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
	if err := running.Commit(); err != nil {
		t.Errorf("the running writer after another started: %v", err)
	}
}

// TestNamedPipe gives a named pipe as a dump and as an index: each is
// refused at once, without waiting for a writer.
func TestNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	if _, err := FingerprintFile(fifo); !errors.Is(err, ErrNoFile) {
		t.Errorf("FingerprintFile(named pipe): %v, want ErrNoFile", err)
	}
	if _, err := Locate(fifo, ""); !errors.Is(err, ErrNoFile) {
		t.Errorf("Locate(named pipe): %v, want ErrNoFile", err)
	}
	if _, err := Open(fifo, testID); !errors.Is(err, ErrNotIndex) {
		t.Errorf("Open(named pipe): %v, want ErrNotIndex", err)
	}
}
