package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/hprofctl/hprofctl/internal/testshared"
)

var (
	stressN       = flag.Int("stress.n", 0, "TestStress: mutants per input family (0: $STRESS_N, else 8)")
	stressSeed    = flag.Uint64("stress.seed", 1, "TestStress: seed of the mutations")
	stressKeep    = flag.String("stress.keep", "", "TestStress: keep failing mutants in this directory")
	stressWorkers = flag.Int("stress.workers", 0, "TestStress: commands run in parallel (0: GOMAXPROCS)")
	stressOnly    = flag.String("stress.only", "", "TestStress: run only mutant INPUT#K, as a failure names it")
)

// The stress test's defaults and limits: every command on every mutant
// must end within stressTimeout, with a peak resident set of at most
// stressRSSBase bytes (200 MB) plus stressRSSFactor times the input's
// size.
const (
	stressDefaultN  = 8
	stressTimeout   = 30 * time.Second
	stressRSSBase   = 200_000_000
	stressRSSFactor = 20
)

// The input families.
const (
	familyHprof   = "hprof"
	familyASCII   = "ascii"
	familyJVMPI   = "jvmpi"
	familyThreads = "threads"
)

// stressFamilies are the families in the order the counts are printed.
var stressFamilies = []string{familyHprof, familyASCII, familyJVMPI, familyThreads}

// The commands each kind of input is read by.
var (
	heapCommands = [][]string{
		{"info"}, {"histo"}, {"histo", "--size", "fields"}, {"dominators"},
		{"retainers", "--class", `^java\.lang\.String$`}, {"leaks"},
	}
	profileCommands = append(slices.Clone(heapCommands),
		[]string{"sites"}, []string{"threads"}, []string{"deadlocks"}, []string{"cpu"}, []string{"monitors"})
	threadDumpCommands = [][]string{{"threads"}, {"deadlocks"}}
)

// stressInput is a real input that the stress test mutates.
type stressInput struct {
	family string
	// name identifies the input in messages and in -stress.only.
	name string
	// data is what the mutations change.
	data []byte
	// text inputs get huge numbers where binary ones get huge length
	// fields.
	text    bool
	fields  []binaryField
	numbers [][]int
	// ids are the identifier fields of an HPROF input, which the
	// mutations set to other identifiers of the dump.
	ids []binaryField
	// floor is the least input size the memory limit counts (the
	// uncompressed size of a gzip stream).
	floor int64
	// layout writes a mutant of data into dir, with whatever files it
	// needs beside it, and returns the path the commands read, the size of
	// the input and the file names an error message may name.
	layout func(dir string, mutant []byte) (path string, size int64, names []string, err error)
	// args follow the path on every command line.
	args     []string
	commands [][]string
}

// plainLayout writes a mutant as the file name.
func plainLayout(name string) func(string, []byte) (string, int64, []string, error) {
	return func(dir string, mutant []byte) (string, int64, []string, error) {
		path := filepath.Join(dir, name)
		return path, int64(len(mutant)), []string{name}, os.WriteFile(path, mutant, 0o644)
	}
}

// numberRuns matches the numbers of text inputs.
var numberRuns = regexp.MustCompile(`[0-9]+`)

func newTextInput(family, name, file string, data []byte, commands [][]string) *stressInput {
	return &stressInput{
		family: family, name: family + "/" + name, data: data, text: true,
		numbers: numberRuns.FindAllIndex(data, -1), layout: plainLayout(file), commands: commands,
	}
}

func newHprofInput(name, file string, data []byte) *stressInput {
	fs := hprofFields(data)
	return &stressInput{
		family: familyHprof, name: familyHprof + "/" + name, data: data,
		fields: fs.fields, ids: fs.ids, layout: plainLayout(file), commands: profileCommands,
	}
}

// readMaybeGzip reads a file, decompressed when it is gzip.
func readMaybeGzip(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// isBinaryHprof tells an HPROF binary dump from the hprof agent's ASCII
// output, which starts with the same words.
func isBinaryHprof(b []byte) bool {
	return bytes.HasPrefix(b, []byte("JAVA PROFILE 1.0")) && bytes.IndexByte(b[:min(len(b), 32)], 0) > 0
}

// stressInputs gathers the real inputs of every family: the repository's
// own, and those of ../shared when it is there.
func stressInputs(t *testing.T) []*stressInput {
	root := repoRoot(t)
	var ins []*stressInput

	jdk17 := filepath.Join(root, "testdata", "jvm", "jdk17-default.hprof.gz")
	plain := readMaybeGzip(t, jdk17)
	ins = append(ins, newHprofInput("jdk17-default.hprof", "jdk17-default.hprof", plain))
	stored, err := os.ReadFile(jdk17)
	if err != nil {
		t.Fatal(err)
	}
	gz := newHprofInput("jdk17-default.hprof.gz", "jdk17-default.hprof.gz", stored)
	gz.fields, gz.ids, gz.floor = nil, nil, int64(len(plain))
	ins = append(ins, gz)
	// The JVM's own -gz file, whose members are inflated in parallel.
	jvmGz, err := os.ReadFile(filepath.Join(root, "testdata", "jvm", "jdk17-gz.hprof.gz"))
	if err != nil {
		t.Fatal(err)
	}
	members := newHprofInput("jdk17-gz.hprof.gz", "jdk17-gz.hprof.gz", jvmGz)
	members.fields, members.ids, members.floor = nil, nil, int64(len(plain))
	ins = append(ins, members)

	for _, pattern := range []string{"testdata/ascii/*.txt", "testdata/threads/*.hprof.txt"} {
		files, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, f := range files {
			ins = append(ins, newTextInput(familyASCII, filepath.Base(f), filepath.Base(f), readMaybeGzip(t, f), profileCommands))
		}
	}
	agent, _ := filepath.Glob(filepath.Join(root, "testdata", "agent", "*.hprof*"))
	for _, f := range agent {
		b := readMaybeGzip(t, f)
		name := "agent/" + filepath.Base(f)
		switch {
		case isBinaryHprof(b):
			ins = append(ins, newHprofInput(name, strings.TrimSuffix(filepath.Base(f), ".gz"), b))
		case bytes.HasPrefix(b, []byte("JAVA PROFILE 1.0")):
			ins = append(ins, newTextInput(familyASCII, name, strings.TrimSuffix(filepath.Base(f), ".gz"), b, profileCommands))
		}
	}
	threads, _ := filepath.Glob(filepath.Join(root, "testdata", "threads", "*"))
	agentThreads, _ := filepath.Glob(filepath.Join(root, "testdata", "agent", "*.threads.txt"))
	for _, f := range append(threads, agentThreads...) {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".hprof.txt") || strings.Contains(base, "java-version") ||
			!strings.HasSuffix(base, ".txt") && !strings.HasSuffix(base, ".json") {
			continue
		}
		ins = append(ins, newTextInput(familyThreads, base, base, readMaybeGzip(t, f), threadDumpCommands))
	}

	shared, ok := testshared.Find()
	if !ok {
		if os.Getenv(testshared.RequireEnv) != "" {
			t.Fatalf("../shared is missing (%s is set)", testshared.RequireEnv)
		}
		t.Log("../shared not present: its dumps and the JVMPI family are left out")
		return ins
	}
	corpus := filepath.Join(shared, "corpus")
	for _, f := range []string{
		"agourlay_hprof-slurp/hprof-32.bin",
		"eclipse-mat_mat/oracle_jdk7_21_hprofagent.hprof.gz",
		"android/test-dump-base.hprof.gz",
	} {
		file := strings.TrimSuffix(filepath.Base(f), ".gz")
		ins = append(ins, newHprofInput(strings.TrimSuffix(f, ".gz"), file, readMaybeGzip(t, filepath.Join(corpus, f))))
	}
	ascii, _ := filepath.Glob(filepath.Join(corpus, "*", "java.hprof.txt"))
	for _, f := range ascii {
		name := filepath.Base(filepath.Dir(f)) + "/java.hprof.txt"
		ins = append(ins, newTextInput(familyASCII, name, "java.hprof.txt", readMaybeGzip(t, f), profileCommands))
	}
	return append(ins, jvmpiInputs(t, filepath.Join(shared, "jvmpi-samples"))...)
}

// jvmpiManifest is what the stress test reads of a capture manifest.
type jvmpiManifest struct {
	Format          string `json:"format"`
	Level           int    `json:"level"`
	IDSize          int    `json:"id_size"`
	ByteOrder       string `json:"byte_order"`
	IDByteOrder     string `json:"id_byte_order"`
	ScalarByteOrder string `json:"scalar_byte_order"`
	Classes         string `json:"classes"`
	Events          string `json:"events"`
}

func manifestOrder(specific, shorthand string) binary.ByteOrder {
	if specific == "little" || specific == "" && shorthand == "little" {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

var (
	manifestLength = regexp.MustCompile(`"length":\s*[0-9]+`)
	manifestSHA    = regexp.MustCompile(`"sha256":\s*"[0-9a-fA-F]*"`)
)

// jvmpiInputs are captures of the JVMPI samples (their buffer mutated
// under a manifest rewritten to its length and hash, or their manifest or
// side channel mutated) and bare buffers described with flags.
func jvmpiInputs(t *testing.T, dir string) []*stressInput {
	var ins []*stressInput
	buffers := []string{
		"heap-small-l0-id4-be", "heap-small-l1-id8-le", "heap-small-l2-id4-mx", "heap-small-l2-id8-be",
		"obj-small-class-cp-id4-le", "obj-small-instance-id8-be", "obj-small-objarray-id4-be",
		"obj-small-primarray-id8-le", "mon-nocontention-id4-be", "mon-nocontention-id8-le",
	}
	manifests := []string{"heap-small-l2-id8-le", "mon-nocontention-id4-le"}
	sides := []string{"heap-small-l1-id4-be", "mon-nocontention-id8-be"}
	bare := []string{"heap-small-l0-id8-le", "heap-small-l2-id8-mx", "obj-small-instance-id4-le", "mon-nocontention-id8-be"}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type capture struct {
		base        string
		manifest    []byte
		bin         []byte
		m           jvmpiManifest
		side        string
		buf         jvmpiBuffer
		sideContent []byte
	}
	load := func(base string) capture {
		c := capture{base: base, manifest: read(base + ".json"), bin: read(base + ".bin")}
		if err := json.Unmarshal(c.manifest, &c.m); err != nil {
			t.Fatalf("%s.json: %v", base, err)
		}
		c.side = c.m.Classes + c.m.Events
		c.sideContent = read(c.side)
		c.buf = jvmpiBuffer{
			kind: strings.TrimSuffix(strings.TrimPrefix(c.m.Format, "jvmpi-"), "-dump"), level: c.m.Level, id: c.m.IDSize,
			ids: manifestOrder(c.m.IDByteOrder, c.m.ByteOrder), scalars: manifestOrder(c.m.ScalarByteOrder, c.m.ByteOrder),
		}
		if c.buf.kind == "object" {
			c.buf.level = 2
		}
		if c.m.Classes != "" {
			var err error
			if c.buf.classes, err = readJVMPIClassLayouts(filepath.Join(dir, c.m.Classes)); err != nil {
				t.Fatalf("%s: %v", c.m.Classes, err)
			}
		}
		return c
	}
	// write lays a capture out in out: manifest, buffer and side channel,
	// the manifest rewritten to the buffer's length and hash when
	// rehash is set.
	write := func(c capture, out string, manifest, bin, side []byte, rehash bool) (string, int64, []string, error) {
		if rehash {
			sum := sha256.Sum256(bin)
			manifest = manifestLength.ReplaceAll(manifest, []byte(`"length": `+strconv.Itoa(len(bin))))
			manifest = manifestSHA.ReplaceAll(manifest, []byte(`"sha256": "`+hex.EncodeToString(sum[:])+`"`))
		}
		names := []string{c.base + ".json", c.base + ".bin", c.side}
		var size int64
		for k, b := range [][]byte{manifest, bin, side} {
			if err := os.WriteFile(filepath.Join(out, names[k]), b, 0o644); err != nil {
				return "", 0, nil, err
			}
			size += int64(len(b))
		}
		return filepath.Join(out, c.base+".json"), size, names, nil
	}
	for _, base := range buffers {
		c := load(base)
		ins = append(ins, &stressInput{
			family: familyJVMPI, name: familyJVMPI + "/" + base + ".bin", data: c.bin,
			fields: jvmpiLengthFields(c.bin, c.buf), commands: profileCommands,
			layout: func(out string, mutant []byte) (string, int64, []string, error) {
				return write(c, out, c.manifest, mutant, c.sideContent, true)
			},
		})
	}
	for _, base := range manifests {
		c := load(base)
		in := newTextInput(familyJVMPI, "manifest:"+base+".json", "", c.manifest, profileCommands)
		in.layout = func(out string, mutant []byte) (string, int64, []string, error) {
			return write(c, out, mutant, c.bin, c.sideContent, false)
		}
		ins = append(ins, in)
	}
	for _, base := range sides {
		c := load(base)
		in := newTextInput(familyJVMPI, "side:"+c.side, "", c.sideContent, profileCommands)
		in.layout = func(out string, mutant []byte) (string, int64, []string, error) {
			return write(c, out, c.manifest, c.bin, mutant, false)
		}
		ins = append(ins, in)
	}
	for _, base := range bare {
		c := load(base)
		order := "big"
		switch {
		case c.buf.ids == binary.LittleEndian && c.buf.scalars == binary.LittleEndian:
			order = "little"
		case c.buf.ids == binary.LittleEndian:
			order = "ids-little"
		}
		args := []string{"--jvmpi", c.buf.kind, "--id-size", strconv.Itoa(c.m.IDSize), "--byte-order", order}
		commands := heapCommands
		switch c.buf.kind {
		case "heap":
			args = append(args, "--level", strconv.Itoa(c.m.Level))
		case "monitor":
			commands = [][]string{{"deadlocks"}}
		}
		// Without class layouts a heap dump of level 1 or 2 is read up to
		// its first class dump: its counts are the ones before it.
		c.buf.classes = nil
		ins = append(ins, &stressInput{
			family: familyJVMPI, name: familyJVMPI + "/bare:" + base + ".bin", data: c.bin,
			fields: jvmpiLengthFields(c.bin, c.buf), layout: plainLayout(base + ".bin"), args: args, commands: commands,
		})
	}
	return ins
}

// hugeNumbers replace a number of a text input.
var hugeNumbers = []string{
	"4294967295", "4294967296", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
	"9223372036854775808", "18446744073709551616", "99999999999999999999999999999999", "-1", "0",
}

// mutate returns a mutant of the input's data and says what it changed:
// one mutation, or one time in four two or three in a row (a huge length
// or number only first, while the offsets found in the original hold).
func (in *stressInput) mutate(r *rand.Rand) ([]byte, string) {
	m, desc := in.mutateOnce(r, in.data, true)
	if r.IntN(4) == 0 {
		for range 1 + r.IntN(2) {
			if len(m) == 0 {
				break
			}
			var d string
			m, d = in.mutateOnce(r, m, false)
			desc += "; then " + d
		}
	}
	return m, desc
}

// mutateOnce applies one random mutation to b, which it does not change;
// a length or number is set only when first.
func (in *stressInput) mutateOnce(r *rand.Rand, b []byte, first bool) ([]byte, string) {
	n := len(b)
	// span is a random range length, spread over orders of magnitude.
	span := func(limit int) int { return 1 + r.IntN(max(1, min(limit, 1<<(1+r.IntN(16))))) }
	ops := []string{"cut", "flip", "zero", "duplicate", "swap"}
	if first {
		ops = append(ops, "length")
		if len(in.ids) > 0 {
			ops = append(ops, "id")
		}
	}
	if in.text {
		ops = append(ops, "long line")
	}
	switch ops[r.IntN(len(ops))] {
	case "cut":
		at := r.IntN(n)
		return slices.Clone(b[:at]), fmt.Sprintf("cut at byte %d of %d", at, n)
	case "flip":
		m := slices.Clone(b)
		var desc []string
		for range 1 + r.IntN(8) {
			at, bit := r.IntN(n), r.IntN(8)
			m[at] ^= 1 << bit
			desc = append(desc, fmt.Sprintf("%d.%d", at, bit))
		}
		return m, "flip bits (byte.bit) " + strings.Join(desc, ", ")
	case "length":
		if in.text {
			if len(in.numbers) == 0 {
				break
			}
			at := in.numbers[r.IntN(len(in.numbers))]
			huge := hugeNumbers[r.IntN(len(hugeNumbers))]
			m := slices.Concat(b[:at[0]], []byte(huge), b[at[1]:])
			return m, fmt.Sprintf("number %q at byte %d set to %s", b[at[0]:at[1]], at[0], huge)
		}
		return in.hugeLength(r, b)
	case "id":
		return in.otherID(r, b)
	case "zero":
		l := span(n)
		at := r.IntN(n - l + 1)
		m := slices.Clone(b)
		clear(m[at : at+l])
		return m, fmt.Sprintf("zero bytes %d..%d", at, at+l)
	case "duplicate":
		l := span(n)
		from, to := r.IntN(n-l+1), r.IntN(n+1)
		m := slices.Concat(b[:to], b[from:from+l], b[to:])
		return m, fmt.Sprintf("copy bytes %d..%d to byte %d", from, from+l, to)
	case "swap":
		if n < 2 {
			break
		}
		l := span(n / 2)
		a := r.IntN(n - 2*l + 1)
		c := a + l + r.IntN(n-a-2*l+1)
		m := slices.Clone(b)
		copy(m[a:], b[c:c+l])
		copy(m[c:], b[a:a+l])
		return m, fmt.Sprintf("swap bytes %d..%d with %d..%d", a, a+l, c, c+l)
	case "long line":
		at := r.IntN(n + 1)
		if nl := bytes.IndexByte(b[at:], '\n'); nl >= 0 {
			at += nl + 1
		}
		token := []string{"a", "9", " ", "\t", "0x7f", "at ", "\""}[r.IntN(7)]
		line := bytes.Repeat([]byte(token), (1<<(16+r.IntN(7)))/len(token))
		m := slices.Concat(b[:at], line, []byte("\n"), b[at:])
		return m, fmt.Sprintf("insert a line of %d bytes (%q repeated) at byte %d", len(line), token, at)
	}
	at := r.IntN(n)
	return slices.Clone(b[:at]), fmt.Sprintf("cut at byte %d of %d", at, n)
}

// pickField picks a field of fields: a kind of field first, then one of
// that kind, so that rare kinds are not drowned by frequent ones.
func pickField(r *rand.Rand, fields []binaryField) binaryField {
	var kinds []string
	for _, f := range fields {
		if !slices.Contains(kinds, f.what) {
			kinds = append(kinds, f.what)
		}
	}
	kind := kinds[r.IntN(len(kinds))]
	var of []binaryField
	for _, f := range fields {
		if f.what == kind {
			of = append(of, f)
		}
	}
	return of[r.IntN(len(of))]
}

// otherID sets an identifier field of b, the HPROF input's data, to the
// value of another identifier field of any kind: a class's superclass
// may become one of its subclasses, an instance's class an array class,
// an object a second object with the same id.
func (in *stressInput) otherID(r *rand.Rand, b []byte) ([]byte, string) {
	m := slices.Clone(b)
	f := pickField(r, in.ids)
	donor := in.ids[r.IntN(len(in.ids))]
	copy(m[f.offset:f.offset+f.width], b[donor.offset:donor.offset+donor.width])
	return m, fmt.Sprintf("%s at byte %d: %#x set to %#x, the %s at byte %d", f.what, f.offset,
		b[f.offset:f.offset+f.width], b[donor.offset:donor.offset+donor.width], donor.what, donor.offset)
}

// hugeLength sets a length field of b, the binary input's data, to a huge
// value: one its framing has, the kind of field chosen first, or, when it has none,
// a u4 at a random offset.
func (in *stressInput) hugeLength(r *rand.Rand, b []byte) ([]byte, string) {
	m := slices.Clone(b)
	if len(in.fields) == 0 {
		at := r.IntN(max(1, len(m)-3))
		if len(m) < 4 {
			return m[:0], "cut at byte 0"
		}
		v := []uint32{0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x10000000}[r.IntN(4)]
		binary.BigEndian.PutUint32(m[at:], v)
		return m, fmt.Sprintf("u4 at byte %d (no length field known) set to %#x", at, v)
	}
	f := pickField(r, in.fields)
	if f.width == 2 {
		old := f.order.Uint16(m[f.offset:])
		v := []uint16{0xFFFF, 0x8000, 0x7FFF, 0x1000, old + 1}[r.IntN(5)]
		f.order.PutUint16(m[f.offset:], v)
		return m, fmt.Sprintf("%s (u2) at byte %d: %d set to %d", f.what, f.offset, old, v)
	}
	old := f.order.Uint32(m[f.offset:])
	v := []uint32{0xFFFFFFFF, 0xFFFFFFF0, 0x80000000, 0x7FFFFFFF, 0x40000000, 0x10000000, 0x01000000, old + 1, old*1000 + 1}[r.IntN(9)]
	f.order.PutUint32(m[f.offset:], v)
	return m, fmt.Sprintf("%s (u4) at byte %d: %d set to %d", f.what, f.offset, old, v)
}

// headBuffer keeps the first limit bytes written to it.
type headBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.limit - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// stressRun is how one command on one mutant ended.
type stressRun struct {
	exit    int // -1: killed by a signal
	elapsed time.Duration
	// peakRSS is the command's peak resident set: the figure of rusage
	// where it passes the test process's own peak, and otherwise the
	// highest VmHWM sampled while it ran. Linux charges a child started
	// with vfork with the resident set its parent had at the exec, so a
	// rusage figure no higher than the parent's says nothing of the
	// command; the samples are the command's own but may miss its last
	// milliseconds. sampledRSS is that highest sample.
	peakRSS, sampledRSS int64
	stderr              string
	timedOut            bool
	// overLimit: the resident set passed the limit while it ran, and it
	// was killed.
	overLimit bool
}

// runStressCommand runs hprofctl with args, killing it past stressTimeout
// or when its resident set passes rssLimit.
func runStressCommand(bin, dir string, args []string, rssLimit int64) (stressRun, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stressTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	stderr := &headBuffer{limit: 16 << 10}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return stressRun{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return stressRun{}, err
	}
	done := make(chan struct{})
	w := &rssWatch{limit: rssLimit}
	go w.watch(cmd.Process, done)
	err := cmd.Wait()
	close(done)
	run := stressRun{elapsed: time.Since(start), stderr: stderr.String(), timedOut: ctx.Err() != nil,
		overLimit: w.over.Load(), sampledRSS: w.hwm.Load()}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return run, err
	}
	run.exit = cmd.ProcessState.ExitCode()
	run.peakRSS = run.sampledRSS
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > self.Maxrss {
		run.peakRSS = ru.Maxrss << 10
	}
	return run, nil
}

// rssWatch follows the resident set of a running command.
type rssWatch struct {
	limit int64
	hwm   atomic.Int64
	over  atomic.Bool
}

// watch reads p's VmRSS and VmHWM every few milliseconds until done, and
// kills p as soon as its resident set passes the limit, so that a blow-up
// is caught before it takes the machine's memory. (Start returns after
// the exec, so what it reads is the command's own memory.)
func (w *rssWatch) watch(p *os.Process, done <-chan struct{}) {
	status := fmt.Sprintf("/proc/%d/status", p.Pid)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		b, err := os.ReadFile(status)
		if err != nil {
			return
		}
		rss, hwm := procKiB(b, "VmRSS:"), procKiB(b, "VmHWM:")
		if hwm > w.hwm.Load() {
			w.hwm.Store(hwm)
		}
		if rss > w.limit && p.Kill() == nil {
			w.over.Store(true)
			return
		}
	}
}

// procKiB reads a "Key:   123 kB" line of /proc/PID/status, in bytes.
func procKiB(status []byte, key string) int64 {
	_, rest, ok := bytes.Cut(status, []byte("\n"+key))
	if !ok {
		return 0
	}
	f := bytes.Fields(rest)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[0]), 10, 64)
	return n << 10
}

// crashLine finds what the Go runtime prints when a program crashes.
var crashLine = regexp.MustCompile(`(?m)^(panic: |fatal error: |goroutine [0-9]+ \[)`)

// problem says what is wrong with a run, "" when nothing is: a crash, a
// hang, a memory blow-up, an exit status other than 0 and 1, or an error
// that does not name the file.
func (run stressRun) problem(limit int64, names []string) string {
	switch {
	case run.timedOut:
		return fmt.Sprintf("still running after %v: killed", stressTimeout)
	case run.overLimit:
		return fmt.Sprintf("resident set passed the limit of %.1f MB: killed", float64(limit)/1e6)
	case run.peakRSS > limit:
		return fmt.Sprintf("peak RSS %.1f MB over the limit of %.1f MB", float64(run.peakRSS)/1e6, float64(limit)/1e6)
	case crashLine.MatchString(run.stderr):
		return "crashed"
	case run.exit == 1:
		for _, n := range names {
			if strings.Contains(run.stderr, n) {
				return ""
			}
		}
		return "error exit with a message that names no file of the input"
	case run.exit != 0:
		return fmt.Sprintf("exit status %d", run.exit)
	}
	return ""
}

// familyStats are the counts of one family.
type familyStats struct {
	inputs, mutants, runs, successes, errorExits, failures int
	maxElapsed                                             time.Duration
	maxElapsedAt                                           string
	maxRSS, maxRSSLimit, maxSampledRSS                     int64
	maxRSSAt                                               string
}

// stressFailure is a mutant that some commands failed on.
type stressFailure struct {
	input    string
	k        int
	mutation string
	kept     string
	// problems say which commands failed and how; stderr is what the
	// first of them printed.
	problems []string
	stderr   string
}

// stressJob is mutant k of an input.
type stressJob struct {
	in *stressInput
	k  int
}

// stressRunner runs the jobs and gathers the counts and failures.
type stressRunner struct {
	bin, keep string
	seed      uint64
	mu        sync.Mutex
	stats     map[string]*familyStats
	failures  []stressFailure
}

// mutantRand is the random source of mutant k of the named input: the
// same for the same seed, whatever else runs.
func mutantRand(seed uint64, name string, k int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()^uint64(k)))
}

func (s *stressRunner) run(t *testing.T, dir string, job stressJob) {
	in := job.in
	mutant, desc := in.mutate(mutantRand(s.seed, in.name, job.k))
	if err := os.RemoveAll(dir); err != nil {
		t.Error(err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Error(err)
		return
	}
	path, size, names, err := in.layout(dir, mutant)
	if err != nil {
		t.Error(err)
		return
	}
	limit := stressRSSBase + stressRSSFactor*max(size, in.floor)
	failed := stressFailure{input: in.name, k: job.k, mutation: desc}
	var runs []stressRun
	for _, c := range in.commands {
		args := slices.Concat(c, []string{path}, in.args)
		run, err := runStressCommand(s.bin, dir, args, limit)
		if err != nil {
			t.Errorf("%s#%d: hprofctl %s: %v", in.name, job.k, strings.Join(args, " "), err)
			return
		}
		runs = append(runs, run)
		if p := run.problem(limit, names); p != "" {
			if len(failed.problems) == 0 {
				failed.stderr = run.stderr
			}
			failed.problems = append(failed.problems, fmt.Sprintf("hprofctl %s: %s", strings.Join(args, " "), p))
		}
	}
	if len(failed.problems) > 0 {
		kept := filepath.Join(s.keep, fmt.Sprintf("%s#%d", strings.NewReplacer("/", "_", ":", "_").Replace(in.name), job.k))
		if err := os.CopyFS(kept, os.DirFS(dir)); err != nil {
			t.Errorf("keeping %s: %v", kept, err)
		}
		failed.kept = filepath.Join(kept, filepath.Base(path))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats[in.family]
	st.mutants++
	for k, run := range runs {
		st.runs++
		switch run.exit {
		case 0:
			st.successes++
		case 1:
			st.errorExits++
		}
		at := fmt.Sprintf("%s#%d %s", in.name, job.k, strings.Join(in.commands[k], " "))
		if run.elapsed > st.maxElapsed {
			st.maxElapsed, st.maxElapsedAt = run.elapsed, at
		}
		if run.peakRSS > st.maxRSS {
			st.maxRSS, st.maxRSSLimit, st.maxRSSAt = run.peakRSS, limit, at
		}
		st.maxSampledRSS = max(st.maxSampledRSS, run.sampledRSS)
	}
	if len(failed.problems) > 0 {
		st.failures++
		s.failures = append(s.failures, failed)
	}
}

// stressCount is the number of mutants per family: -stress.n, else
// $STRESS_N, else stressDefaultN.
func stressCount(t *testing.T) int {
	if *stressN > 0 {
		return *stressN
	}
	if s := os.Getenv("STRESS_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("STRESS_N=%q: expected a positive number", s)
		}
		return n
	}
	return stressDefaultN
}

// TestStress runs hprofctl, as a separate process, on mutants of real
// inputs of every family (HPROF binary, hprof ASCII, JVMPI, thread dumps):
// cut, bit-flipped, with a length set to a huge value, zeroed, with a
// range duplicated or swapped, and for HPROF with an identifier set to
// another of the dump's. Every command that reads the family must
// end within 30 s, without a crash, with a peak resident set of at most
// 200 MB plus 20 times the input, and with status 0, or 1 and a message
// naming the file. -stress.n (or $STRESS_N) mutants per family; make
// stress runs hundreds.
func TestStress(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from Linux's rusage")
	}
	started := time.Now()
	bin := filepath.Join(t.TempDir(), "hprofctl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	inputs := stressInputs(t)
	var list strings.Builder
	for _, in := range inputs {
		kinds := map[string]bool{}
		for _, f := range in.fields {
			kinds[f.what] = true
		}
		fmt.Fprintf(&list, "  %s: %d bytes, %d length fields of %d kinds, %d numbers, %d ids\n", in.name, len(in.data), len(in.fields), len(kinds), len(in.numbers), len(in.ids))
	}
	t.Logf("%d inputs:\n%s", len(inputs), list.String())
	s := &stressRunner{bin: bin, keep: *stressKeep, seed: *stressSeed, stats: map[string]*familyStats{}}
	if s.keep == "" {
		s.keep = filepath.Join(t.TempDir(), "failures")
	}
	for _, f := range stressFamilies {
		s.stats[f] = &familyStats{}
	}
	byFamily := map[string][]*stressInput{}
	for _, in := range inputs {
		byFamily[in.family] = append(byFamily[in.family], in)
		s.stats[in.family].inputs++
	}
	var jobs []stressJob
	if *stressOnly != "" {
		name, k, ok := strings.Cut(*stressOnly, "#")
		n, err := strconv.Atoi(k)
		i := slices.IndexFunc(inputs, func(in *stressInput) bool { return in.name == name })
		if !ok || err != nil || i < 0 {
			t.Fatalf("-stress.only %q: expected INPUT#K with one of the inputs' names", *stressOnly)
		}
		jobs = append(jobs, stressJob{inputs[i], n})
	} else {
		n := stressCount(t)
		for _, f := range stressFamilies {
			ins := byFamily[f]
			for j := range n {
				if len(ins) > 0 {
					jobs = append(jobs, stressJob{ins[j%len(ins)], j / len(ins)})
				}
			}
		}
	}
	workers := *stressWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make(chan stressJob)
	var wg sync.WaitGroup
	scratch := t.TempDir()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(scratch, strconv.Itoa(w))
			for job := range work {
				s.run(t, dir, job)
			}
		}()
	}
	for _, job := range jobs {
		work <- job
	}
	close(work)
	wg.Wait()

	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "family\tinputs\tmutants\truns\texit 0\texit 1\tfailed mutants\tmax s\tmax peak RSS (limit)\tmax sampled VmHWM\n")
	for _, f := range stressFamilies {
		st := s.stats[f]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.1f MB (%.1f MB)\t%.1f MB\n", f, st.inputs, st.mutants, st.runs,
			st.successes, st.errorExits, st.failures, st.maxElapsed.Seconds(), float64(st.maxRSS)/1e6, float64(st.maxRSSLimit)/1e6,
			float64(st.maxSampledRSS)/1e6)
	}
	tw.Flush()
	for _, f := range stressFamilies {
		st := s.stats[f]
		if st.runs > 0 {
			fmt.Fprintf(&table, "%s: slowest %s; biggest %s\n", f, st.maxElapsedAt, st.maxRSSAt)
		}
	}
	fmt.Fprintf(&table, "(peak RSS: rusage's figure where it passes the test process's own peak, %.1f MB at the end, which Linux charges a child started with vfork with; else the sampled VmHWM)\n",
		float64(self.Maxrss<<10)/1e6)
	t.Logf("seed %d, %d workers, %v:\n%s", s.seed, workers, time.Since(started).Round(time.Second), table.String())

	const shown = 20
	for i, f := range s.failures {
		if i == shown {
			t.Errorf("... and %d more failed mutants", len(s.failures)-shown)
			break
		}
		stderr := f.stderr
		if len(stderr) > 1500 {
			stderr = stderr[:1500] + "..."
		}
		t.Errorf("%s#%d failed\n  mutation: %s\n  mutant:   %s\n  replay:   go test ./cmd/hprofctl -run '^TestStress$' -stress.seed=%d -stress.only='%s#%d' -stress.keep=DIR\n  %s\n  stderr of the first:\n%s",
			f.input, f.k, f.mutation, f.kept, s.seed, f.input, f.k, strings.Join(f.problems, "\n  "), stderr)
	}
}
