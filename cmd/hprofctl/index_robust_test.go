//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/model/store"
)

// nobody is the user the read-only test runs hprofctl as when the tests
// run as root, for whom directory permissions do not bite.
const nobody = 65534

// plainFixture writes testdata/jvm/name.hprof.gz decompressed into dir, as
// heap.hprof, and returns its path.
func plainFixture(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, "heap.hprof")
	if err := os.Rename(gunzipFixture(t, fixturePath(t, name+".hprof.gz"), dir), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runIndexed runs hprofctl in-process with its index beside the dump and
// returns its output and what it said on stderr.
func runIndexed(t *testing.T, args ...string) (string, string) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"--index-dir", ""}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("hprofctl %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String()
}

// process returns the test binary set up to run hprofctl with args.
func process(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"--"}, args...)...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "HPROFCTL_INDEX_DIR=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

var robustQuestion = []string{"dominators", "--top", "5", "-o", "json"}

// TestIndexRebuiltWhenStale: a dump rewritten with other content makes the
// index stale; it is rebuilt and the answer is the new dump's. A touched
// dump (same content, later time) keeps its index.
func TestIndexRebuiltWhenStale(t *testing.T) {
	dir := t.TempDir()
	dump := plainFixture(t, dir, "jdk17-default")
	want, _ := runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	got, said := runIndexed(t, append(robustQuestion, dump)...)
	if got != want || !strings.Contains(said, "indexed "+dump) {
		t.Fatalf("first run: said %q; answer equal to --no-index: %v", said, got == want)
	}
	if _, err := os.Stat(dump + store.Suffix); err != nil {
		t.Fatalf("no index beside the dump: %v", err)
	}
	if got, said = runIndexed(t, append(robustQuestion, dump)...); got != want || said != "" {
		t.Fatalf("second run: said %q (want nothing); answer equal: %v", said, got == want)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(dump, later, later); err != nil {
		t.Fatal(err)
	}
	got, said = runIndexed(t, append(robustQuestion, dump)...)
	if got != want || said != "" {
		t.Fatalf("touched dump: said %q (want nothing: its content is the same, the index serves); answer equal: %v", said, got == want)
	}
	// The same path now holds another dump.
	plainFixture(t, dir, "jdk17-nocoops")
	if err := os.Chtimes(dump, later, later); err != nil {
		t.Fatal(err)
	}
	want, _ = runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	got, said = runIndexed(t, append(robustQuestion, dump)...)
	if got != want || !strings.Contains(said, "stale") {
		t.Fatalf("rewritten dump: said %q; answer equal to the new dump's: %v", said, got == want)
	}
}

// TestIndexDamaged: an index with a byte flipped anywhere (header, section
// table, any section) or cut short anywhere is never used by a question
// that opens it whole: it is rebuilt, and the answer is the dump's. A
// question the index's kept answers give (robustQuestion) reads the
// header, the section table and a few small sections only: its answer is
// the dump's too, the index rebuilt when the damage is in what it reads.
func TestIndexDamaged(t *testing.T) {
	dir := t.TempDir()
	dump := plainFixture(t, dir, "jdk17-default")
	index := dump + store.Suffix
	whole := []string{"dominators", "--top", "5", "--by-class", "-o", "json"}
	wantKept, _ := runIndexed(t, append(robustQuestion, dump)...)
	want, _ := runIndexed(t, append(whole, dump)...)
	good, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := store.Open(index, store.Identity{Content: session.IndexContent, Dump: mustFingerprint(t, dump)})
	if err != nil {
		t.Fatal(err)
	}
	// A byte in the header, in the section table at the end, and in the
	// middle of every section.
	places := []int64{0, 20, int64(len(good)) - 10}
	for _, s := range ix.Sections() {
		if s.Bytes > 0 {
			places = append(places, int64(s.Offset+s.Bytes/2))
		}
	}
	ix.Close()
	damage := func(what string, data []byte) {
		t.Helper()
		if err := os.WriteFile(index, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, said := runIndexed(t, append(robustQuestion, dump)...); got != wantKept {
			t.Errorf("%s: said %q; the kept answer differs from the dump's", what, said)
		}
		if err := os.WriteFile(index, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, said := runIndexed(t, append(whole, dump)...)
		if got != want || !strings.Contains(said, "not used") || !strings.Contains(said, "indexed") {
			t.Errorf("%s: said %q; answer equal to the dump's: %v", what, said, got == want)
		}
		if rebuilt, err := os.ReadFile(index); err != nil || !bytes.Equal(rebuilt, good) {
			t.Errorf("%s: the rebuilt index differs from the first one (%v)", what, err)
		}
	}
	for _, at := range places {
		bad := bytes.Clone(good)
		bad[at] ^= 0x20
		damage("byte "+itoa(at)+" flipped", bad)
	}
	for _, n := range []int64{0, 7, 64, int64(len(good)) / 2, int64(len(good)) - 1} {
		damage("cut to "+itoa(n)+" bytes", good[:n])
	}
}

// TestIndexReadOnlyDirectory: a dump in a directory its user cannot write
// is indexed in the user's cache directory. As root, hprofctl runs as
// user nobody.
func TestIndexReadOnlyDirectory(t *testing.T) {
	root, err := os.MkdirTemp("", "hprofctl-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	dumps, cache := filepath.Join(root, "dumps"), filepath.Join(root, "cache")
	t.Cleanup(func() {
		os.Chmod(dumps, 0o755)
		os.RemoveAll(root)
	})
	for _, d := range []string{dumps, cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(root, 0o755)
	bin := filepath.Join(root, "hprofctl.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	dump := plainFixture(t, dumps, "jdk17-default")
	if err := os.Chmod(dumps, 0o555); err != nil {
		t.Fatal(err)
	}
	want, _ := runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	for run := range 2 {
		cmd := process([]string{"XDG_CACHE_HOME=" + cache}, append(robustQuestion, dump)...)
		cmd.Path = bin
		if os.Geteuid() == 0 {
			if err := os.Chown(cache, nobody, nobody); err != nil {
				t.Fatal(err)
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if errors.Is(err, syscall.EPERM) {
			t.Skip("cannot run a process as another user:", err)
		}
		if err != nil || string(out) != want {
			t.Fatalf("run %d: %v, answer equal to --no-index: %v\n%s", run, err, string(out) == want, stderr.String())
		}
		said := stderr.String()
		if run == 0 && !strings.Contains(said, "indexed "+dump+" in") || run == 0 && !strings.Contains(said, cache) || run == 1 && said != "" {
			t.Fatalf("run %d said %q; want the index in %s built once", run, said, cache)
		}
	}
	if _, err := os.Stat(dump + store.Suffix); err == nil {
		t.Fatal("an index was written in the read-only directory")
	}
}

// TestIndexConcurrentBuilds: four processes asked the same question at once
// each answer it and leave one valid index and no temporary file.
func TestIndexConcurrentBuilds(t *testing.T) {
	dir := t.TempDir()
	dump := plainFixture(t, dir, "jdk17-default")
	want, _ := runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	var wg sync.WaitGroup
	outs := make([]string, 4)
	errs := make([]error, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := process(nil, append(robustQuestion, dump)...).Output()
			outs[i], errs[i] = string(out), err
		}()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || outs[i] != want {
			t.Errorf("process %d: %v, answer equal to --no-index: %v", i, errs[i], outs[i] == want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[1] != "heap.hprof"+store.Suffix {
		t.Fatalf("directory holds %q, want the dump and its index", names)
	}
	if got, said := runIndexed(t, append(robustQuestion, dump)...); got != want || said != "" {
		t.Fatalf("after the concurrent builds: said %q (want nothing: the index is fresh); answer equal: %v", said, got == want)
	}
}

// TestIndexStdin: a dump on standard input is analysed in memory; no index
// is written anywhere.
func TestIndexStdin(t *testing.T) {
	dir := t.TempDir()
	dump := plainFixture(t, dir, "jdk17-default")
	want, _ := runCLI(t, append([]string{"--no-index"}, append(robustQuestion, dump)...)...)
	in, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cache := t.TempDir()
	cmd := process([]string{"XDG_CACHE_HOME=" + cache}, append(robustQuestion, "-")...)
	cmd.Dir = dir
	cmd.Stdin = in
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("answer from standard input differs from the file's")
	}
	for _, d := range []string{dir, cache} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), store.Suffix) || e.IsDir() {
				t.Errorf("%s holds %s after a run on standard input", d, e.Name())
			}
		}
	}
}

func mustFingerprint(t *testing.T, path string) store.Fingerprint {
	t.Helper()
	fp, err := store.FingerprintFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// copyExecutable copies the file src to dst, executable by everyone.
func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}
