//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/model/store/storetest"
)

// daemon is a group user nobody is not in.
const daemon = 1

// sharedDir is a directory as /tmp is (mode 1777, root's) in a tree user
// nobody can reach, with a copy of the test binary nobody can run and a
// cache directory for each of root and nobody. It skips the test unless
// it runs as root.
type sharedDir struct {
	dir, bin, rootCache, nobodyCache string
}

func newSharedDir(t *testing.T) sharedDir {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to act as two users")
	}
	top, err := os.MkdirTemp("", "hprofctl-trust-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	s := sharedDir{
		dir: filepath.Join(top, "shared"), bin: filepath.Join(top, "hprofctl.test"),
		rootCache: filepath.Join(top, "root-cache"), nobodyCache: filepath.Join(top, "nobody-cache"),
	}
	for _, d := range []string{s.dir, s.rootCache, s.nobodyCache} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(os.Chmod(top, 0o755), os.Chmod(s.dir, os.ModeSticky|0o777), os.Chown(s.nobodyCache, nobody, nobody)); err != nil {
		t.Fatal(err)
	}
	if err := copyExecutable(os.Args[0], s.bin); err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs hprofctl with args as root (uid 0) or nobody, each with its own
// cache directory, and returns its output and what it said on stderr.
func (s sharedDir) run(t *testing.T, uid int, args ...string) (string, string, error) {
	t.Helper()
	cache := s.rootCache
	if uid != 0 {
		cache = s.nobodyCache
	}
	cmd := process([]string{"XDG_CACHE_HOME=" + cache}, args...)
	cmd.Path = s.bin
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, syscall.EPERM) {
		t.Skip("cannot run a process as another user:", err)
	}
	return string(out), stderr.String(), err
}

// dump writes the fixture into the shared directory, owned by uid and gid
// with mode perm.
func (s sharedDir) dump(t *testing.T, uid, gid int, perm os.FileMode) string {
	t.Helper()
	dump := plainFixture(t, s.dir, "jdk17-default")
	if err := errors.Join(os.Chown(dump, uid, gid), os.Chmod(dump, perm)); err != nil {
		t.Fatal(err)
	}
	return dump
}

// TestIndexPlantedInSharedDirectory: user nobody indexes a dump in a 1777
// directory, then zeroes its retained sizes and seals it again (every
// checksum valid). Root's commands ignore that index, say so, and answer
// as without an index.
func TestIndexPlantedInSharedDirectory(t *testing.T) {
	s := newSharedDir(t)
	dump := s.dump(t, 0, 0, 0o644)
	if _, said, err := s.run(t, nobody, "index", dump); err != nil {
		t.Fatalf("nobody's index: %v\n%s", err, said)
	}
	planted := dump + store.Suffix
	data, err := os.ReadFile(planted)
	if err != nil {
		t.Fatal(err)
	}
	clear(storetest.Section(data, "retention.retained-bytes"))
	storetest.Reseal(data)
	if err := os.WriteFile(planted, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	for run := range 2 {
		got, said, err := s.run(t, 0, append(robustQuestion, dump)...)
		if err != nil || got != want {
			t.Fatalf("run %d: %v; answer equal to --no-index: %v\n%s", run, err, got == want, said)
		}
		if !strings.Contains(said, "ignored "+planted) || !strings.Contains(said, "belongs to user 65534") {
			t.Errorf("run %d said %q; want the planted index named as ignored", run, said)
		}
		if built := strings.Contains(said, "indexed "); built != (run == 0) {
			t.Errorf("run %d said %q; want root's own index built once, in its cache", run, said)
		}
	}
}

// TestIndexUnreadableOrUnreplaceable: beside a dump in a 1777 directory,
// an index of root's that user nobody cannot read, or a file of root's
// that is no index, does not stop nobody from having an index: it goes
// to nobody's cache, and the next run uses it.
func TestIndexUnreadableOrUnreplaceable(t *testing.T) {
	s := newSharedDir(t)
	dump := s.dump(t, 0, 0, 0o644)
	besides := dump + store.Suffix
	want, _ := runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	for _, c := range []struct {
		what  string
		place func()
		says  string
	}{
		{"root's index of mode 0600", func() {
			if _, said, err := s.run(t, 0, "index", dump); err != nil {
				t.Fatalf("root's index: %v\n%s", err, said)
			}
			os.Chmod(besides, 0o600)
		}, "permission denied"},
		{"root's file that is no index", func() {
			os.Remove(besides)
			os.WriteFile(besides, []byte("not an index\n"), 0o644)
		}, "not an hprofctl index"},
	} {
		os.RemoveAll(s.nobodyCache)
		os.Mkdir(s.nobodyCache, 0o755)
		os.Chown(s.nobodyCache, nobody, nobody)
		c.place()
		for run := range 2 {
			got, said, err := s.run(t, nobody, append(robustQuestion, dump)...)
			if err != nil || got != want {
				t.Fatalf("%s, run %d: %v; answer equal to --no-index: %v\n%s", c.what, run, err, got == want, said)
			}
			if run == 0 && (!strings.Contains(said, c.says) || !strings.Contains(said, "indexed "+dump+" in") || !strings.Contains(said, s.nobodyCache)) {
				t.Errorf("%s, run 0 said %q; want %q and the index built in %s", c.what, said, c.says, s.nobodyCache)
			}
			if run == 1 && strings.Contains(said, "indexed") {
				t.Errorf("%s, run 1 said %q; want the index in the cache used", c.what, said)
			}
		}
	}
}

// TestIndexNeverWiderThanDump: the index beside a dump is readable by no
// group the dump is not readable by. Root gives it the dump's group; user
// nobody, not in the dump's group, gives it its own group with no access.
func TestIndexNeverWiderThanDump(t *testing.T) {
	s := newSharedDir(t)
	for _, c := range []struct {
		uid, dumpUID, dumpGID int
		wantGID               int
		wantMode              os.FileMode
	}{
		{0, 0, nobody, nobody, 0o640},
		{nobody, nobody, daemon, nobody, 0o600},
	} {
		dump := s.dump(t, c.dumpUID, c.dumpGID, 0o640)
		os.Remove(dump + store.Suffix)
		if _, said, err := s.run(t, c.uid, "index", dump); err != nil {
			t.Fatalf("user %d: %v\n%s", c.uid, err, said)
		}
		st, err := os.Stat(dump + store.Suffix)
		if err != nil {
			t.Fatal(err)
		}
		gid := int(st.Sys().(*syscall.Stat_t).Gid)
		if gid != c.wantGID || st.Mode().Perm() != c.wantMode {
			t.Errorf("user %d, dump 0640 of group %d: index %04o of group %d, want %04o of group %d",
				c.uid, c.dumpGID, st.Mode().Perm(), gid, c.wantMode, c.wantGID)
		}
	}
}

// TestIndexTempGoneAfterNextRun: what a build killed midway leaves beside
// the dump is gone after the next run, whether that run builds the index
// or finds it fresh.
func TestIndexTempGoneAfterNextRun(t *testing.T) {
	dir := t.TempDir()
	dump := plainFixture(t, dir, "jdk17-default")
	left := dump + store.Suffix + ".4242.tmp"
	for _, what := range []string{"no index yet", "a fresh index"} {
		if err := os.WriteFile(left, make([]byte, 4096), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, said := runIndexed(t, append(robustQuestion, dump)...); strings.Contains(said, "indexed") != (what == "no index yet") {
			t.Fatalf("%s: said %q", what, said)
		}
		if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the temporary file is still there after the next run: %v", what, err)
		}
	}
}

// TestIndexThreeAtOnce: three processes started at once on one dump build
// one index; the others wait for it and use it.
func TestIndexThreeAtOnce(t *testing.T) {
	dump := plainFixture(t, t.TempDir(), "jdk17-default")
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		built int
	)
	start := make(chan struct{})
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := process(nil, "index", "-o", "json", dump)
			<-start
			out, err := cmd.Output()
			var sum struct{ Built bool }
			if err == nil {
				err = json.Unmarshal(out, &sum)
			}
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					err = errors.New(string(ee.Stderr))
				}
				t.Error(err)
			}
			mu.Lock()
			if sum.Built {
				built++
			}
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if built != 1 {
		t.Errorf("%d of 3 processes built the index, want 1", built)
	}
}
