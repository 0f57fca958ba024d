package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		head string
		want Kind
	}{
		{"JAVA PROFILE 1.0.1, created Wed Nov 28 00:09:58 2001\n", KindHPROFASCII},
		{"JAVA PROFILE 1.0.2, created Mon Jan  5 10:00:00 2015\n\nHeader for -agentlib:hprof", KindHPROFASCII},
		{"count callee caller time\n", KindHPROFASCII},
		{"JAVA PROFILE 1.0.2\x00\x00\x00\x00\x08\x00\x00\x01\x8f", KindHPROF},
		{"JAVA PROFILE 1.0.3\x00\x00\x00\x00\x04", KindHPROF},
		{"JAVA PROFILE 1.0\x00\x00\x00\x00\x04", KindHPROF},
		{`{"threadDump": {"processId": "4242"}}`, KindThreadDumpJSON},
		{"\xef\xbb\xbf12345:\r\n\n  {\"threadDump\": {}}", KindThreadDumpJSON},
		{"12345:\n{\"threadDump\": {}}", KindThreadDumpJSON},
		{"12345:\n2025-04-15 10:00:00\nFull thread dump OpenJDK 64-Bit Server VM", KindThreadDumpText},
		{"2024-01-01 12:00:00 INFO started\n", KindThreadDumpText},
		{"naïve text cut inside a character: \xc3", KindThreadDumpText},
		{"12345:x\n{}", KindThreadDumpText},
		{"", KindUnknown},
		{"\x00\x01\x02\x03binary", KindUnknown},
		{"text\xff\xfebroken", KindUnknown},
	} {
		if got := Detect([]byte(c.head)); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestJSONStart(t *testing.T) {
	for head, want := range map[string]int{
		`{"threadDump": {}}`:         0,
		"\xef\xbb\xbf{}":             3,
		"4242:\n{}":                  6,
		"4242:\r\n  \n {}":           7,
		"\xef\xbb\xbf4242:\n\n{}":    9,
		"Full thread dump\n{}":       -1,
		"4242:\nFull thread dump {}": -1,
	} {
		if got := JSONStart([]byte(head)); got != want {
			t.Errorf("JSONStart(%q) = %d, want %d", head, got, want)
		}
	}
}

// writeFile writes data to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCaptureManifest(t *testing.T) {
	dir := t.TempDir()
	manifest := writeFile(t, dir, "heap.json", `{"format": "jvmpi-heap-dump", "level": 2, "id_size": 4, "classes": "heap.classes.json"}`)
	buffer := writeFile(t, dir, "heap.bin", "\x21\x00\x00\x10\x00")
	side := writeFile(t, dir, "heap.classes.json", `{"format": "jvmpi-class-load-side-channel", "class_load": []}`)
	monitors := writeFile(t, dir, "mon.json", "\n  {\"format\":\"jvmpi-monitor-dump\"}")
	lone := writeFile(t, dir, "lone.bin", "\x01\x02")
	for _, c := range []struct {
		path, want string
	}{
		{manifest, manifest},
		{buffer, manifest},
		{monitors, monitors},
		{side, ""},
		{lone, ""},
		{filepath.Join(dir, "missing.json"), ""},
		{"-", ""},
		{"", ""},
	} {
		got, ok := CaptureManifest(c.path)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("CaptureManifest(%s) = %q, %v; want %q", c.path, got, ok, c.want)
		}
	}
}

// gunzip returns the decompressed bytes of the gzip file at path, read
// without this package.
func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSniffFixtures tells the format of fixtures of every family, and
// checks that the File still yields every byte from the first.
func TestSniffFixtures(t *testing.T) {
	testdata := filepath.Join("..", "..", "testdata")
	for _, c := range []struct {
		path string
		want Kind
	}{
		{filepath.Join(testdata, "jvm", "jdk17-default.hprof.gz"), KindHPROF},
		{filepath.Join(testdata, "jvm", "jdk17-gz.hprof.gz"), KindHPROF},
		{filepath.Join(testdata, "agent", "heap-ascii.hprof.txt.gz"), KindHPROFASCII},
		{filepath.Join(testdata, "agent", "sites-binary.hprof.gz"), KindHPROF},
		{filepath.Join(testdata, "ascii", "oldprof.txt"), KindHPROFASCII},
		{filepath.Join(testdata, "threads", "jdk17-busy.jcmd.txt"), KindThreadDumpText},
		{filepath.Join(testdata, "threads", "jdk25-busy.json"), KindThreadDumpJSON},
		{filepath.Join(testdata, "threads", "jdk17-monitor-pair.applog.txt"), KindThreadDumpText},
	} {
		f, err := Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Sniff(false)
		if err != nil || got != (Format{Kind: c.want}) {
			t.Errorf("%s: Sniff = %+v, %v; want %v", c.path, got, err, c.want)
		}
		all, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(c.path, ".gz") {
			want = gunzip(t, c.path)
		}
		if !bytes.Equal(all, want) {
			t.Errorf("%s: after Sniff the file yields %d bytes, its content is %d", c.path, len(all), len(want))
		}
	}
}

// TestSniffJVMPI tells captures by their manifest, whichever of its files
// is given and whatever the flags say, and bare buffers by the flags.
func TestSniffJVMPI(t *testing.T) {
	dir := t.TempDir()
	manifest := writeFile(t, dir, "heap.json", `{"format": "jvmpi-heap-dump", "id_size": 4}`)
	buffer := writeFile(t, dir, "heap.bin", "JAVA PROFILE 1.0.2\x00 is no buffer, yet a manifest describes it")
	bare := writeFile(t, dir, "bare.bin", "JAVA PROFILE 1.0.2\x00 read as a buffer when the flags say so")
	for _, c := range []struct {
		path string
		bare bool
		want Format
	}{
		{manifest, false, Format{Kind: KindJVMPICapture, Manifest: manifest}},
		{buffer, false, Format{Kind: KindJVMPICapture, Manifest: manifest}},
		{buffer, true, Format{Kind: KindJVMPICapture, Manifest: manifest}},
		{bare, true, Format{Kind: KindJVMPIBare}},
		{bare, false, Format{Kind: KindHPROF}},
	} {
		f, err := Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Sniff(c.bare)
		f.Close()
		if err != nil || got != c.want {
			t.Errorf("%s (bare %v): Sniff = %+v, %v; want %+v", c.path, c.bare, got, err, c.want)
		}
	}
}

// failingReader yields data, then fails with err.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func (r *failingReader) Close() error { return nil }

// TestSniffReadError fails on an error before the bytes every header is
// told by, and leaves one after them to the parser, which reads up to it
// and then meets it.
func TestSniffReadError(t *testing.T) {
	broken := io.ErrUnexpectedEOF
	f, err := NewFile("short", &failingReader{data: []byte("JAVA PROF"), err: broken}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Sniff(false); err == nil || !strings.Contains(err.Error(), "short: ") {
		t.Errorf("Sniff of 9 bytes then an error: %v, want the error naming the file", err)
	}
	head := "JAVA PROFILE 1.0.1, created Wed Nov 28 00:09:58 2001\nmore text"
	f, err = NewFile("long", &failingReader{data: []byte(head), err: broken}, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Sniff(false)
	if err != nil || got.Kind != KindHPROFASCII {
		t.Errorf("Sniff of %d bytes then an error: %+v, %v; want hprof ASCII", len(head), got, err)
	}
	all, err := io.ReadAll(f)
	if string(all) != head || err != broken {
		t.Errorf("read after Sniff: %q, %v; want the %d bytes, then %v", all, err, len(head), broken)
	}
}
