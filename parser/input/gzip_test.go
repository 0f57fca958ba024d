package input

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/gzip"
)

// text returns n bytes of deterministic, compressible text.
func text(n int, seed uint64) []byte {
	words := []string{"heap", "dump", "object", "class", "java", "retained", "gc", "root", "0x7f3a", "thread", "\x00\x01\x02", "segment"}
	rnd := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = append(b, words[rnd.IntN(len(words))]...)
		b = strconv.AppendUint(append(b, ' '), rnd.Uint64N(1<<20), 16)
		b = append(b, ' ')
	}
	return b[:n]
}

// memberWriter writes gzip members as the JVM writes -gz dumps: one per
// block bytes written, the first with the "HPROF BLOCKSIZE" comment, the
// others with a bare header. It records where each member starts.
type memberWriter struct {
	dst     io.Writer
	block   int
	level   int
	pending []byte
	stored  int64
	offset  int64
	starts  []Checkpoint
}

func (w *memberWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), w.block-len(w.pending))
		w.pending = append(w.pending, p[:k]...)
		p = p[k:]
		if len(w.pending) == w.block {
			if err := w.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// flush writes the pending bytes as one member.
func (w *memberWriter) flush() error {
	w.starts = append(w.starts, Checkpoint{Stored: w.stored, Offset: w.offset})
	counted := &countingWriter{w: w.dst}
	zw, err := gzip.NewWriterLevel(counted, w.level)
	if err != nil {
		return err
	}
	if len(w.starts) == 1 {
		zw.Comment = "HPROF BLOCKSIZE=" + strconv.Itoa(w.block)
	}
	if _, err := zw.Write(w.pending); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	w.stored += counted.n
	w.offset += int64(len(w.pending))
	w.pending = w.pending[:0]
	return nil
}

// Close writes the last member (an empty one when nothing was written).
func (w *memberWriter) Close() error {
	if len(w.pending) > 0 || len(w.starts) == 0 {
		return w.flush()
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// jvmGzip compresses data as the JVM writes -gz dumps (see memberWriter).
// It returns the file and where each member starts.
func jvmGzip(t testing.TB, data []byte, block, level int) ([]byte, []Checkpoint) {
	t.Helper()
	var out bytes.Buffer
	w := &memberWriter{dst: &out, block: block, level: level}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), w.starts
}

// reference reads z as klauspost/compress/gzip does on its own: all of it, then the
// error that ended it (nil at a clean end).
func reference(z []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// readParallel reads z through parallelGzip with the given workers, in
// reads of odd sizes, and returns the bytes, the error and the checkpoints.
func readParallel(t *testing.T, z []byte, block, workers int) ([]byte, error, []Checkpoint) {
	t.Helper()
	log := &checkpointLog{}
	p := newParallelGzip(bufio.NewReaderSize(bytes.NewReader(z), 1<<20), block, workers, log)
	defer p.close()
	var got []byte
	buf := make([]byte, 7919)
	for {
		n, err := p.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			return got, nil, log.snapshot()
		}
		if err != nil {
			return got, err, log.snapshot()
		}
	}
}

// sameAsReference reads z with 1 and 4 workers and checks that the bytes
// and the error are those of klauspost/compress/gzip.
func sameAsReference(t *testing.T, what string, z []byte, block int) {
	t.Helper()
	want, wantErr := reference(z)
	for _, workers := range []int{1, 4} {
		got, err, _ := readParallel(t, z, block, workers)
		if !bytes.Equal(got, want) {
			t.Errorf("%s, %d workers: %d bytes, klauspost/compress/gzip gives %d (first difference at %d)",
				what, workers, len(got), len(want), firstDifference(got, want))
		}
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%s, %d workers: error %v, klauspost/compress/gzip gives %v", what, workers, err, wantErr)
		}
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestParallelGzipOrder reads JVM-style files of one, a few and hundreds of
// members with 1 to 8 workers: the bytes in order, a checkpoint at each
// member start (thinned to one per 64 KiB for small members).
func TestParallelGzipOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int
		block int
	}{
		{"one member", 300 << 10, 1 << 20},
		{"exactly one block", 1 << 20, 1 << 20},
		{"six members", 5<<20 + 12345, 1 << 20},
		{"300 small members", 1200 << 10, 4 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := text(tc.size, uint64(tc.size))
			z, starts := jvmGzip(t, data, tc.block, gzip.BestSpeed)
			var want []Checkpoint
			for _, c := range starts {
				if n := len(want); n == 0 || c.Offset-want[n-1].Offset >= checkpointGap {
					want = append(want, c)
				}
			}
			for _, workers := range []int{1, 2, 8} {
				got, err, checkpoints := readParallel(t, z, tc.block, workers)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%d workers: %d bytes, error %v; want the %d bytes written", workers, len(got), err, len(data))
				}
				if !slicesEqual(checkpoints, want) {
					t.Errorf("%d workers: checkpoints %v, want %v", workers, checkpoints, want)
				}
			}
		})
	}
}

func slicesEqual(a, b []Checkpoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestParallelGzipReadSizes checks the reader with reads of every size.
func TestParallelGzipReadSizes(t *testing.T) {
	data := text(600<<10, 3)
	z, _ := jvmGzip(t, data, 64<<10, gzip.BestSpeed)
	p := newParallelGzip(bufio.NewReader(bytes.NewReader(z)), 64<<10, 3, &checkpointLog{})
	defer p.close()
	if err := iotest.TestReader(p, data); err != nil {
		t.Fatal(err)
	}
}

// TestParallelGzipTruncated cuts a JVM-style file around each member
// boundary and inside members: the bytes before the cut and the error are
// those of klauspost/compress/gzip (io.ErrUnexpectedEOF inside a member or header, a
// clean end exactly at a member boundary).
func TestParallelGzipTruncated(t *testing.T) {
	const block = 64 << 10
	data := text(300<<10, 5)
	z, starts := jvmGzip(t, data, block, gzip.BestSpeed)
	cuts := []int{1, 5, 10, 30, len(z) - 1, len(z) - 8}
	for _, c := range starts[1:] {
		s := int(c.Stored)
		cuts = append(cuts, s-9, s-1, s, s+1, s+9, s+10, s+100)
	}
	for _, cut := range cuts {
		sameAsReference(t, "cut at "+strconv.Itoa(cut), z[:cut], block)
	}
	want, err := reference(z[:starts[2].Stored])
	if err != nil || len(want) != 2*block {
		t.Fatalf("cut at the third member: klauspost/compress/gzip gives %d bytes, %v; want two whole members", len(want), err)
	}
}

// TestParallelGzipCorrupt damages members in several ways: the bytes up to
// the damage and the error are those of klauspost/compress/gzip.
func TestParallelGzipCorrupt(t *testing.T) {
	const block = 64 << 10
	data := text(400<<10, 7)
	z, starts := jvmGzip(t, data, block, gzip.BestSpeed)
	third, fourth := int(starts[2].Stored), int(starts[3].Stored)
	damage := func(what string, change func(b []byte) []byte) {
		t.Helper()
		sameAsReference(t, what, change(bytes.Clone(z)), block)
	}
	damage("deflate data flipped", func(b []byte) []byte { b[(third+fourth)/2] ^= 0x55; return b })
	damage("CRC flipped", func(b []byte) []byte { b[fourth-8] ^= 1; return b })
	damage("size flipped", func(b []byte) []byte { b[fourth-2] ^= 1; return b })
	damage("header magic flipped", func(b []byte) []byte { b[third+1] = 0; return b })
	damage("compression method changed", func(b []byte) []byte { b[third+2] = 7; return b })
	damage("trailing garbage", func(b []byte) []byte { return append(b, "not gzip at all"...) })
	damage("trailing zeros", func(b []byte) []byte { return append(b, make([]byte, 100)...) })
	damage("member dropped", func(b []byte) []byte { return append(b[:third:third], b[fourth:]...) })
	_, err := reference(func() []byte { b := bytes.Clone(z); b[fourth-8] ^= 1; return b }())
	if !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("klauspost/compress/gzip on a flipped CRC: %v, want %v", err, gzip.ErrChecksum)
	}
}

// TestParallelGzipIrregular reads files the member scan cannot cut right:
// a member header with a file name (not found by the scan), the magic of a
// member header inside stored (uncompressed) deflate data, a member that
// inflates to far more than its BLOCKSIZE, one whose compressed bytes are
// longer than a region may grow, each between JVM-style members.
func TestParallelGzipIrregular(t *testing.T) {
	const block = 64 << 10
	data := text(200<<10, 9)
	z, _ := jvmGzip(t, data, block, gzip.BestSpeed)

	member := func(payload []byte, level int, name string) []byte {
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, level)
		if err != nil {
			t.Fatal(err)
		}
		zw.Name = name
		if _, err := zw.Write(payload); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	fooled := bytes.Repeat(append(bytes.Clone(memberMagic), 4, 3, 'x'), 1000)
	noise := make([]byte, 0, 512<<10)
	for rnd := rand.New(rand.NewPCG(1, 2)); len(noise) < cap(noise); {
		noise = binary.LittleEndian.AppendUint64(noise, rnd.Uint64())
	}
	for _, tc := range []struct {
		name  string
		extra []byte
	}{
		{"named member", member(text(10000, 11), gzip.BestSpeed, "heap.hprof")},
		{"member magic in stored data", member(fooled, gzip.NoCompression, "")},
		{"member of 8 MiB of zeros", member(make([]byte, 8<<20), gzip.BestSpeed, "")},
		{"member of 512 KiB of noise", member(noise, gzip.BestSpeed, "")},
	} {
		file := append(append(bytes.Clone(z), tc.extra...), z...)
		sameAsReference(t, tc.name, file, block)
		want, err := reference(file)
		if err != nil || len(want) <= len(data) {
			t.Fatalf("%s: klauspost/compress/gzip gives %d bytes, %v", tc.name, len(want), err)
		}
	}
}

// TestParallelGzipReadError: an error reading the file (other than its
// end) comes after the same bytes as from klauspost/compress/gzip, at several places.
func TestParallelGzipReadError(t *testing.T) {
	const block = 64 << 10
	z, starts := jvmGzip(t, text(300<<10, 21), block, gzip.BestSpeed)
	failure := errors.New("disk on fire")
	for _, cut := range []int{int(starts[1].Stored), int(starts[2].Stored) + 1000, len(z)} {
		src := func() io.Reader { return io.MultiReader(bytes.NewReader(z[:cut]), iotest.ErrReader(failure)) }
		zr, err := gzip.NewReader(src())
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := io.ReadAll(zr)
		p := newParallelGzip(bufio.NewReader(src()), block, 2, &checkpointLog{})
		got, err := io.ReadAll(p)
		p.close()
		if !errors.Is(wantErr, failure) || !errors.Is(err, failure) || !bytes.Equal(got, want) {
			t.Errorf("failure after %d bytes: %d bytes, %v; klauspost/compress/gzip gives %d bytes, %v", cut, len(got), err, len(want), wantErr)
		}
	}
}

// TestJVMGzipFixture reads the JDK 17 -gz=1 fixture: its three members start
// where docs/hprof.md's table (read from the file's bytes) says.
func TestJVMGzipFixture(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "jvm", "jdk17-gz.hprof.gz")
	z, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := reference(z)
	if err != nil || len(want) != 2_100_793 {
		t.Fatalf("klauspost/compress/gzip: %d bytes, %v", len(want), err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := f.r.(*parallelGzip); !ok || f.Compression != Gzip {
		t.Fatalf("compression %s read by %T, want gzip read by members", f.Compression, f.r)
	}
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, %v; want klauspost/compress/gzip's %d bytes", len(got), err, len(want))
	}
	wantCheckpoints := []Checkpoint{{0, 0}, {403_006, 1_048_467}, {651_776, 1_048_467 + 1_048_573}}
	if c := f.Checkpoints(); !slicesEqual(c, wantCheckpoints) {
		t.Errorf("checkpoints %v, want %v", c, wantCheckpoints)
	}
	for _, c := range wantCheckpoints {
		r, err := Resume(bytes.NewReader(z), int64(len(z)), c)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(rest, want[c.Offset:]) {
			t.Errorf("resumed at %+v: %d bytes, %v; want the %d from offset %d", c, len(rest), err, len(want)-int(c.Offset), c.Offset)
		}
	}
}

// TestSequentialGzip reads gzip files the JVM did not write (gzip -9 -n of
// a fixture, members concatenated by tools) through the pipe: the bytes
// and error of klauspost/compress/gzip, a checkpoint at each member.
func TestSequentialGzip(t *testing.T) {
	z, err := os.ReadFile(filepath.Join("..", "..", "testdata", "jvm", "jdk17-default.hprof.gz"))
	if err != nil {
		t.Fatal(err)
	}
	second := text(200<<10, 13)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Name = "part2"
	zw.Write(second)
	zw.Close()
	joined := append(bytes.Clone(z), b.Bytes()...)
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"single member", z},
		{"two members", joined},
		{"cut", joined[:len(joined)-5000]},
		{"cut in the second header", joined[:len(z)+4]},
		{"trailing garbage", append(bytes.Clone(joined), 0, 1, 2)},
	} {
		want, wantErr := reference(tc.file)
		f, err := NewFile(tc.name, io.NopCloser(bytes.NewReader(tc.file)), int64(len(tc.file)))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.r.(*pipe); !ok {
			t.Fatalf("%s: read by %T, want the pipe", tc.name, f.r)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%s: %d bytes, %v; klauspost/compress/gzip gives %d bytes, %v", tc.name, len(got), err, len(want), wantErr)
		}
		if tc.name == "two members" {
			wantCheckpoints := []Checkpoint{{0, 0}, {int64(len(z)), int64(len(want) - len(second))}}
			if c := f.Checkpoints(); !slicesEqual(c, wantCheckpoints) {
				t.Errorf("checkpoints %v, want %v", c, wantCheckpoints)
			}
		}
	}
}

// TestBzip2Pipe reads bzip2 through the pipe, whole and cut: the bytes and
// error of compress/bzip2.
func TestBzip2Pipe(t *testing.T) {
	bz, err := exec.LookPath("bzip2")
	if err != nil {
		t.Skip("no bzip2 command to compress with")
	}
	data := text(2<<20, 17)
	cmd := exec.Command(bz, "-c", "-1")
	cmd.Stdin = bytes.NewReader(data)
	z, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range [][]byte{z, z[:len(z)/2]} {
		want, wantErr := io.ReadAll(bzip2.NewReader(bytes.NewReader(file)))
		f, err := NewFile("x.bz2", io.NopCloser(bytes.NewReader(file)), int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if f.Compression != Bzip2 || !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%d stored bytes (%s): %d bytes, %v; compress/bzip2 gives %d bytes, %v", len(file), f.Compression, len(got), err, len(want), wantErr)
		}
	}
}

// TestCheckpointBefore finds the checkpoint to resume from.
func TestCheckpointBefore(t *testing.T) {
	list := []Checkpoint{{0, 0}, {400, 1000}, {900, 2000}}
	for _, tc := range []struct {
		offset int64
		want   Checkpoint
	}{{0, list[0]}, {999, list[0]}, {1000, list[1]}, {1999, list[1]}, {5000, list[2]}} {
		if i, ok := CheckpointBefore(list, tc.offset); !ok || list[i] != tc.want {
			t.Errorf("offset %d: checkpoint %d %v, want %+v", tc.offset, i, ok, tc.want)
		}
	}
	if _, ok := CheckpointBefore(list[1:], 10); ok {
		t.Error("offset 10 before the first checkpoint: found one")
	}
	if _, err := Resume(bytes.NewReader(nil), 0, Checkpoint{}); err == nil {
		t.Error("Resume past the end of the file: no error")
	}
}

// TestCloseStopsDecompression closes files in the middle of reading: later
// reads fail with fs.ErrClosed and the decompressing goroutines end.
func TestCloseStopsDecompression(t *testing.T) {
	data := text(3<<20, 19)
	jvm, _ := jvmGzip(t, data, 256<<10, gzip.BestSpeed)
	var plain bytes.Buffer
	zw := gzip.NewWriter(&plain)
	zw.Write(data)
	zw.Close()
	before := runtime.NumGoroutine()
	for _, z := range [][]byte{jvm, plain.Bytes()} {
		f, err := NewFile("x.gz", io.NopCloser(bytes.NewReader(z)), int64(len(z)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(f, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if n, err := f.Read(make([]byte, 4<<20)); n != 0 || !errors.Is(err, fs.ErrClosed) {
			t.Errorf("%T: read after Close: %d bytes, %v; want %v", f.r, n, err, fs.ErrClosed)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before opening", n, before)
	}
}

// TestReadAhead reads a plain file ahead of its reader: the same bytes
// and end, and after Close fs.ErrClosed and no goroutine left; a
// compressed file read ahead is read as before.
func TestReadAhead(t *testing.T) {
	data := text(3<<20, 23)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	before := runtime.NumGoroutine()
	for _, file := range [][]byte{data, z.Bytes()} {
		f, err := NewFile("x", io.NopCloser(bytes.NewReader(file)), int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		f.ReadAhead()
		if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s read ahead: %d bytes, %v; want %d bytes", f.Compression, len(got), err, len(data))
		}
		f.Close()
	}
	f, err := NewFile("x", io.NopCloser(bytes.NewReader(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	f.ReadAhead()
	if _, err := io.ReadFull(f, make([]byte, 100<<10)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if n, err := f.Read(make([]byte, 4<<20)); n != 0 || !errors.Is(err, fs.ErrClosed) {
		t.Errorf("read after Close: %d bytes, %v; want %v", n, err, fs.ErrClosed)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before opening", n, before)
	}
}
