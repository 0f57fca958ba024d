package jvmpi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Manifest formats (docs/jvmpi.md#manifest).
const (
	FormatHeapDump    = "jvmpi-heap-dump"
	FormatObjectDump  = "jvmpi-object-dump"
	FormatMonitorDump = "jvmpi-monitor-dump"
)

// CallFrame is a frame of a JVMPI_CallTrace: a line number and a method.
type CallFrame struct {
	Line     int32 `json:"lineno"`
	MethodID HexID `json:"method_id"`
}

// CallTrace is the stack of one thread at the time of a dump event,
// innermost frame first.
type CallTrace struct {
	EnvID  HexID       `json:"env_id"`
	Frames []CallFrame `json:"frames"`
}

// HeapDumpEvent is the part of JVMPI_EVENT_HEAP_DUMP outside the buffer.
type HeapDumpEvent struct {
	Level  int         `json:"dump_level"`
	Traces []CallTrace `json:"traces"`
}

// ObjectDumpEvent is the part of JVMPI_EVENT_OBJECT_DUMP outside the buffer.
type ObjectDumpEvent struct {
	DataLen int64 `json:"data_len"`
}

// Manifest is a capture's <name>.json: what the buffer in <name>.bin is
// and where its side channel is.
type Manifest struct {
	Format          string           `json:"format"`
	Level           int              `json:"level"`
	IDSize          int              `json:"id_size"`
	ByteOrder       string           `json:"byte_order"`
	IDByteOrder     string           `json:"id_byte_order"`
	ScalarByteOrder string           `json:"scalar_byte_order"`
	Classes         string           `json:"classes"`
	Events          string           `json:"events"`
	HeapDumpEvent   *HeapDumpEvent   `json:"heap_dump_event"`
	ObjectDumpEvent *ObjectDumpEvent `json:"object_dump_event"`
	Length          *int64           `json:"length"`
	SHA256          string           `json:"sha256"`
}

// RawMonitorInfo names a raw monitor: its name, its JVMPI_RawMonitor id
// and the char* value a monitor dump carries for its name.
type RawMonitorInfo struct {
	Name    string `json:"name"`
	ID      HexID  `json:"id"`
	NamePtr HexID  `json:"name_ptr"`
}

// ClassName is a class-load event reduced to the class name and id.
type ClassName struct {
	Name string `json:"class_name"`
	ID   HexID  `json:"class_id"`
}

// ObjectAlloc is an OBJECT_ALLOC event.
type ObjectAlloc struct {
	ObjectID HexID `json:"obj_id"`
	ClassID  HexID `json:"class_id"`
	IsArray  int   `json:"is_array"`
	Size     int64 `json:"size"`
}

// MethodName names a method by its class and name.
type MethodName struct {
	ClassName string `json:"class_name"`
	Name      string `json:"method_name"`
	ID        HexID  `json:"method_id"`
}

// MonitorDumpEvent is the part of JVMPI_EVENT_MONITOR_DUMP outside the
// buffer: every thread's trace and status.
type MonitorDumpEvent struct {
	Traces        []CallTrace `json:"traces"`
	ThreadsStatus []int32     `json:"threads_status"`
}

// Thread status codes of a monitor dump event (docs/jvmpi.md#constants).
const (
	ThreadRunnable    = 1
	ThreadMonitorWait = 2
	ThreadCondvarWait = 3
	ThreadSuspended   = 0x8000
	ThreadInterrupted = 0x4000
)

// MonitorEvents is the side channel of monitor dump captures (format
// "jvmpi-monitor-side-channel").
type MonitorEvents struct {
	Format      string           `json:"format"`
	IDSize      int              `json:"id_size"`
	Threads     []ThreadStart    `json:"thread_start"`
	RawMonitors []RawMonitorInfo `json:"raw_monitors"`
	Classes     []ClassName      `json:"class_load"`
	Objects     []ObjectAlloc    `json:"object_alloc"`
	Methods     []MethodName     `json:"methods"`
	Event       MonitorDumpEvent `json:"monitor_dump_event"`
}

// Capture is a loaded capture: its manifest, the buffer's path and
// reader options, and its side channel.
type Capture struct {
	Manifest Manifest
	// ManifestPath and BufferPath are the paths of <name>.json and
	// <name>.bin.
	ManifestPath, BufferPath string
	// Options describe the buffer for NewReader; Name is the buffer path.
	Options Options
	// ClassEvents is the class-load side channel (heap and object dumps).
	ClassEvents *ClassLoadEvents
	// MonitorEvents is the monitor side channel (monitor dumps).
	MonitorEvents *MonitorEvents
}

// LoadCapture reads the manifest at manifestPath and its side channel.
func LoadCapture(manifestPath string) (*Capture, error) {
	c := &Capture{ManifestPath: manifestPath}
	if err := readJSON(manifestPath, &c.Manifest); err != nil {
		return nil, err
	}
	m := &c.Manifest
	dir := filepath.Dir(manifestPath)
	c.BufferPath = strings.TrimSuffix(manifestPath, filepath.Ext(manifestPath)) + ".bin"
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", manifestPath, fmt.Sprintf(format, args...))
	}
	opt := Options{Name: c.BufferPath, Level: m.Level, IDSize: m.IDSize}
	var err error
	if opt.IDOrder, err = byteOrder(m.IDByteOrder, m.ByteOrder); err != nil {
		return nil, bad("id byte order: %v", err)
	}
	if opt.ScalarOrder, err = byteOrder(m.ScalarByteOrder, m.ByteOrder); err != nil {
		return nil, bad("scalar byte order: %v", err)
	}
	if m.IDSize != 4 && m.IDSize != 8 {
		return nil, bad("id_size %d: expected 4 or 8", m.IDSize)
	}
	switch m.Format {
	case FormatHeapDump, FormatObjectDump:
		opt.Kind = HeapDump
		if m.Format == FormatObjectDump {
			opt.Kind, opt.Level = ObjectDump, 2
		} else if m.Level < 0 || m.Level > 2 {
			return nil, bad("level %d: expected 0, 1 or 2", m.Level)
		}
		if m.Classes == "" {
			return nil, bad("no \"classes\" side channel named")
		}
		c.ClassEvents = &ClassLoadEvents{}
		side := filepath.Join(dir, m.Classes)
		if err := readJSON(side, c.ClassEvents); err != nil {
			return nil, fmt.Errorf("%s: class-load side channel: %w", manifestPath, err)
		}
		if c.ClassEvents.IDSize != 0 && c.ClassEvents.IDSize != m.IDSize {
			return nil, fmt.Errorf("%s: id_size %d, its manifest says %d", side, c.ClassEvents.IDSize, m.IDSize)
		}
		if opt.Classes, err = NewClassTable(c.ClassEvents.Classes); err != nil {
			return nil, fmt.Errorf("%s: %w", side, err)
		}
	case FormatMonitorDump:
		opt.Kind = MonitorDump
		if m.Events == "" {
			return nil, bad("no \"events\" side channel named")
		}
		c.MonitorEvents = &MonitorEvents{}
		side := filepath.Join(dir, m.Events)
		if err := readJSON(side, c.MonitorEvents); err != nil {
			return nil, fmt.Errorf("%s: monitor side channel: %w", manifestPath, err)
		}
		if c.MonitorEvents.IDSize != 0 && c.MonitorEvents.IDSize != m.IDSize {
			return nil, fmt.Errorf("%s: id_size %d, its manifest says %d", side, c.MonitorEvents.IDSize, m.IDSize)
		}
	default:
		return nil, bad("format %q: expected %s, %s or %s", m.Format, FormatHeapDump, FormatObjectDump, FormatMonitorDump)
	}
	c.Options = opt
	return c, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// byteOrder resolves a manifest byte order: the specific key, else the
// byte_order shorthand, else big-endian.
func byteOrder(specific, shorthand string) (binary.ByteOrder, error) {
	s := specific
	if s == "" {
		s = shorthand
	}
	switch s {
	case "", "big":
		return binary.BigEndian, nil
	case "little":
		return binary.LittleEndian, nil
	}
	return nil, fmt.Errorf("%q: expected big or little", s)
}

// Open opens the capture's buffer. Reading it to the end checks it
// against the manifest's length and sha256: a mismatch is an error saying
// the capture is damaged.
func (c *Capture) Open() (io.ReadCloser, error) {
	f, err := os.Open(c.BufferPath)
	if err != nil {
		return nil, err
	}
	v := &verifyingReader{f: f, path: c.BufferPath, length: -1}
	if c.Manifest.Length != nil {
		v.length = *c.Manifest.Length
	}
	if c.Manifest.SHA256 != "" {
		if v.sum, err = hex.DecodeString(c.Manifest.SHA256); err != nil || len(v.sum) != sha256.Size {
			f.Close()
			return nil, fmt.Errorf("%s: sha256 %q is not a hex SHA-256", c.ManifestPath, c.Manifest.SHA256)
		}
		v.h = sha256.New()
	}
	return v, nil
}

// verifyingReader reads a capture's buffer and, at its end, checks its
// length and hash.
type verifyingReader struct {
	f      *os.File
	path   string
	length int64
	sum    []byte
	h      hash.Hash
	n      int64
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.f.Read(p)
	v.n += int64(n)
	if v.h != nil {
		v.h.Write(p[:n])
	}
	if err == io.EOF {
		if v.length >= 0 && v.n != v.length {
			return n, fmt.Errorf("damaged capture: %s has %d bytes, its manifest says %d", v.path, v.n, v.length)
		}
		if v.h != nil && !bytes.Equal(v.h.Sum(nil), v.sum) {
			return n, fmt.Errorf("damaged capture: the sha256 of %s differs from its manifest's", v.path)
		}
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.f.Close() }
