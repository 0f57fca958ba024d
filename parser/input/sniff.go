package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Kind is what a file holds, as Sniff tells it.
type Kind int

// The kinds of file Sniff tells apart.
const (
	// KindUnknown is none of the others: an empty file, or bytes that are
	// no text.
	KindUnknown Kind = iota
	// KindHPROF is a binary HPROF heap dump ("JAVA PROFILE 1.0.x" and a
	// NUL), of any writer (docs/hprof.md#file-header).
	KindHPROF
	// KindHPROFASCII is the classic hprof agent's ASCII output,
	// java.hprof.txt (docs/hprof-ascii.md#file-structure).
	KindHPROFASCII
	// KindJVMPICapture is a JVMPI capture (docs/jvmpi.md#capture-files):
	// its manifest, or the buffer beside it.
	KindJVMPICapture
	// KindJVMPIBare is a bare JVMPI buffer, described on the command line
	// (docs/jvmpi.md#bare-buffers): a buffer has no header to be told by.
	KindJVMPIBare
	// KindThreadDumpText is text that is none of the above: a HotSpot
	// thread dump (jstack, jcmd Thread.print), a JDK 21+ plain-text
	// dump, or a log that may hold a SIGQUIT dump anywhere in it.
	KindThreadDumpText
	// KindThreadDumpJSON is a JDK 21+ Thread.dump_to_file JSON dump.
	KindThreadDumpJSON
)

var kindNames = [...]string{
	KindUnknown: "unknown", KindHPROF: "HPROF", KindHPROFASCII: "hprof ASCII",
	KindJVMPICapture: "JVMPI capture", KindJVMPIBare: "bare JVMPI buffer",
	KindThreadDumpText: "thread dump (text)", KindThreadDumpJSON: "thread dump (JSON)",
}

// String names the kind for people, e.g. "hprof ASCII".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Format is what Sniff tells of a file.
type Format struct {
	Kind Kind
	// Manifest is the path of the capture manifest of a
	// KindJVMPICapture file (the file itself, or the NAME.json beside
	// NAME.bin).
	Manifest string
}

// HeadSize is how many of a file's first (decompressed) bytes Sniff
// looks at: enough to pass a BOM, jcmd's PID line and blank lines before
// a JSON thread dump.
const HeadSize = 4 << 10

// minHead is the fewest bytes every header is told by: a read error before
// them is Sniff's, one after them is met again by the parser of the file.
const minHead = 32

// Sniff tells what f holds, the one place hprofctl tells formats apart: a
// JVMPI capture when a capture manifest describes the file (CaptureManifest
// of f.Name), else a bare JVMPI buffer when bare is set (the command line
// describes it), else what its first bytes say (Detect). It consumes
// nothing: f still yields every byte.
func (f *File) Sniff(bare bool) (Format, error) {
	if manifest, ok := CaptureManifest(f.Name); ok {
		return Format{Kind: KindJVMPICapture, Manifest: manifest}, nil
	}
	if bare {
		return Format{Kind: KindJVMPIBare}, nil
	}
	head, err := f.Head()
	if err != nil && len(head) < minHead {
		return Format{}, err
	}
	return Format{Kind: Detect(head)}, nil
}

// Head returns up to HeadSize of f's first decompressed bytes without
// consuming them, and the error that kept it from reading more (none at
// the end of a short file), which a later Read returns again.
func (f *File) Head() ([]byte, error) {
	br, ok := f.r.(*bufio.Reader)
	if !ok || br.Size() < HeadSize {
		br = bufio.NewReaderSize(f.r, HeadSize)
		f.r = br
	}
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return head, fmt.Errorf("%s: %w", f.Name, err)
	}
	return head, nil
}

// Detect tells what a file holds from its first (decompressed) bytes:
// binary HPROF, the hprof agent's ASCII output, a JSON thread dump, other
// text (a thread dump or a log that may hold one), or KindUnknown. JVMPI
// buffers have no header to be told by (see Sniff).
func Detect(head []byte) Kind {
	switch {
	case isASCIIProfile(head):
		return KindHPROFASCII
	case bytes.HasPrefix(head, []byte("JAVA PROFILE 1.0")):
		return KindHPROF
	case JSONStart(head) >= 0:
		return KindThreadDumpJSON
	case isText(head):
		return KindThreadDumpText
	}
	return KindUnknown
}

// isASCIIProfile reports whether head starts as the hprof agent's ASCII
// output does: its "JAVA PROFILE 1.0.1, created ..." header line, or the
// old prof table of cpu=old output. A binary HPROF file ends its header
// string with a NUL instead.
func isASCIIProfile(head []byte) bool {
	if rest, ok := bytes.CutPrefix(head, []byte("JAVA PROFILE 1.0.")); ok {
		return len(rest) >= 2 && rest[0] >= '0' && rest[0] <= '9' && rest[1] == ','
	}
	return bytes.HasPrefix(head, []byte("count callee caller time"))
}

// JSONStart returns the offset in head at which the JSON of a JDK 21+
// Thread.dump_to_file dump starts, after a UTF-8 BOM and the "PID:" line
// jcmd prints before its output; -1 when the first thing there is not a
// JSON object.
func JSONStart(head []byte) int {
	body := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	skipped := len(head) - len(body)
	if line, rest, ok := bytes.Cut(body, []byte("\n")); ok && isPIDLine(bytes.TrimRight(line, "\r")) {
		skipped += len(line) + 1
		body = rest
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return -1
	}
	return skipped
}

// isPIDLine matches the "12345:" line jcmd prints before its output.
func isPIDLine(line []byte) bool {
	digits, ok := bytes.CutSuffix(line, []byte(":"))
	if !ok || len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isText reports whether head is text: no NUL byte, valid UTF-8 up to a
// character cut at its end.
func isText(head []byte) bool {
	if len(head) == 0 || bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			return !utf8.FullRune(head[i:])
		}
		i += n
	}
	return true
}

// The formats a capture manifest names (docs/jvmpi.md#manifest).
var manifestFormats = [][]byte{[]byte(`"jvmpi-heap-dump"`), []byte(`"jvmpi-object-dump"`), []byte(`"jvmpi-monitor-dump"`)}

// CaptureManifest returns the manifest path of a JVMPI capture given by
// either of its files: path itself when it is a capture manifest, or the
// NAME.json beside a NAME.bin. ok is false when path is no part of a
// capture.
func CaptureManifest(path string) (manifest string, ok bool) {
	if path == "" || path == "-" {
		return "", false
	}
	candidate := path
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		candidate = strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
		if candidate == path {
			return "", false
		}
	}
	head, err := readHead(candidate, 4096)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")) {
		return "", false
	}
	for _, format := range manifestFormats {
		if bytes.Contains(head, format) {
			return candidate, true
		}
	}
	return "", false
}

// readHead reads up to n bytes from the start of the file at path.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:m], nil
}
