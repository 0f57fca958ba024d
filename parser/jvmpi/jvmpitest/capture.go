package jvmpitest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Manifest formats and side-channel formats (docs/jvmpi.md#capture-files).
const (
	FormatHeapDump      = "jvmpi-heap-dump"
	FormatObjectDump    = "jvmpi-object-dump"
	FormatMonitorDump   = "jvmpi-monitor-dump"
	FormatClassEvents   = "jvmpi-class-load-events"
	FormatMonitorEvents = "jvmpi-monitor-side-channel"
)

// Hex is a pointer-sized value of the capture's JSON files: written as a
// hex string, or null for 0.
type Hex uint64

// MarshalJSON writes "0x..." or null.
func (h Hex) MarshalJSON() ([]byte, error) {
	if h == 0 {
		return []byte("null"), nil
	}
	return fmt.Appendf(nil, "%q", fmt.Sprintf("0x%016x", uint64(h))), nil
}

// Frame is a JVMPI_CallFrame.
type Frame struct {
	Line     int32 `json:"lineno"`
	MethodID Hex   `json:"method_id"`
}

// Trace is a JVMPI_CallTrace, innermost frame first; NumFrames is filled
// in by WriteCapture.
type Trace struct {
	EnvID     Hex     `json:"env_id"`
	NumFrames int     `json:"num_frames"`
	Frames    []Frame `json:"frames"`
}

// HeapDumpEvent is the part of JVMPI_EVENT_HEAP_DUMP outside the buffer;
// DumpLevel and NumTraces are filled in by WriteCapture.
type HeapDumpEvent struct {
	DumpLevel int     `json:"dump_level"`
	NumTraces int     `json:"num_traces"`
	Traces    []Trace `json:"traces"`
}

// ObjectDumpEvent is the part of JVMPI_EVENT_OBJECT_DUMP outside the
// buffer.
type ObjectDumpEvent struct {
	DataLen int `json:"data_len"`
}

// Manifest is a capture's <name>.json. WriteCapture fills in the level,
// pointer size, byte orders, side-channel name, length and sha256.
type Manifest struct {
	Format          string           `json:"format"`
	Level           int              `json:"level"`
	IDSize          int              `json:"id_size"`
	IDByteOrder     string           `json:"id_byte_order"`
	ScalarByteOrder string           `json:"scalar_byte_order"`
	Classes         string           `json:"classes,omitempty"`
	Events          string           `json:"events,omitempty"`
	HeapDumpEvent   *HeapDumpEvent   `json:"heap_dump_event,omitempty"`
	ObjectDumpEvent *ObjectDumpEvent `json:"object_dump_event,omitempty"`
	Length          int              `json:"length"`
	SHA256          string           `json:"sha256"`
}

// FieldInfo is a field of a CLASS_LOAD event.
type FieldInfo struct {
	Name      string `json:"field_name"`
	Signature string `json:"field_signature"`
}

// MethodInfo is a method of a CLASS_LOAD event.
type MethodInfo struct {
	Name      string `json:"method_name"`
	Signature string `json:"method_signature"`
	StartLine int32  `json:"start_lineno"`
	EndLine   int32  `json:"end_lineno"`
	ID        Hex    `json:"method_id"`
}

// ClassLoad is a CLASS_LOAD event. Statics and Fields are the class's own,
// in the order the dump writes their values; SuperID is hprofctl's
// addition (docs/jvmpi.md#class-load-side-channel). The counts are filled
// in by WriteCapture.
type ClassLoad struct {
	Name              string       `json:"class_name"`
	SourceName        string       `json:"source_name"`
	NumInterfaces     int          `json:"num_interfaces"`
	Methods           []MethodInfo `json:"methods"`
	NumStaticFields   int          `json:"num_static_fields"`
	Statics           []FieldInfo  `json:"statics"`
	NumInstanceFields int          `json:"num_instance_fields"`
	Fields            []FieldInfo  `json:"instances"`
	ID                Hex          `json:"class_id"`
	SuperID           Hex          `json:"super_id"`
}

// ThreadStart is a THREAD_START event.
type ThreadStart struct {
	Name       string `json:"thread_name"`
	GroupName  string `json:"group_name"`
	ParentName string `json:"parent_name"`
	ThreadID   Hex    `json:"thread_id"`
	EnvID      Hex    `json:"thread_env_id"`
}

// GlobalRefAlloc is a JNI_GLOBALREF_ALLOC event.
type GlobalRefAlloc struct {
	ObjectID Hex `json:"obj_id"`
	RefID    Hex `json:"ref_id"`
}

// ClassEvents is the class-load side channel of heap and object dumps.
type ClassEvents struct {
	ClassLoad  []ClassLoad      `json:"class_load"`
	Threads    []ThreadStart    `json:"thread_start"`
	GlobalRefs []GlobalRefAlloc `json:"jni_globalref_alloc"`
}

// RawMonitorInfo names a raw monitor: its name, its JVMPI_RawMonitor and
// the char* a monitor dump carries for the name.
type RawMonitorInfo struct {
	Name    string `json:"name"`
	ID      Hex    `json:"id"`
	NamePtr Hex    `json:"name_ptr"`
}

// ClassName is a class-load event of the monitor side channel.
type ClassName struct {
	Name string `json:"class_name"`
	ID   Hex    `json:"class_id"`
}

// ObjectAlloc is an OBJECT_ALLOC event.
type ObjectAlloc struct {
	ObjectID Hex   `json:"obj_id"`
	ClassID  Hex   `json:"class_id"`
	IsArray  int   `json:"is_array"`
	Size     int64 `json:"size"`
}

// MethodName names a method by class and name.
type MethodName struct {
	ClassName string `json:"class_name"`
	Name      string `json:"method_name"`
	ID        Hex    `json:"method_id"`
}

// MonitorDumpEvent is the part of JVMPI_EVENT_MONITOR_DUMP outside the
// buffer: every thread's trace and, parallel to them, its status (C.1
// codes); NumTraces is filled in by WriteCapture.
type MonitorDumpEvent struct {
	NumTraces     int     `json:"num_traces"`
	Traces        []Trace `json:"traces"`
	ThreadsStatus []int32 `json:"threads_status"`
}

// MonitorEvents is the side channel of monitor dumps.
type MonitorEvents struct {
	Threads     []ThreadStart    `json:"thread_start"`
	RawMonitors []RawMonitorInfo `json:"raw_monitors"`
	ClassLoad   []ClassName      `json:"class_load"`
	Objects     []ObjectAlloc    `json:"object_alloc"`
	Methods     []MethodName     `json:"methods"`
	Event       MonitorDumpEvent `json:"monitor_dump_event"`
}

func orderName(o binary.ByteOrder) string {
	if o == binary.LittleEndian {
		return "little"
	}
	return "big"
}

func fillTraces(traces []Trace) {
	for i := range traces {
		traces[i].NumFrames = len(traces[i].Frames)
	}
}

// WriteCapture writes the buffer b as the capture <dir>/<name>.bin with
// its manifest <dir>/<name>.json and its side channel <dir>/<name>-events.json
// (events is a *ClassEvents for heap and object dumps, a *MonitorEvents
// for monitor dumps), and returns the manifest's path. m needs only its
// Format and event; the rest comes from b.
func WriteCapture(dir, name string, b *Buffer, m Manifest, events any) (string, error) {
	if err := b.Err(); err != nil {
		return "", err
	}
	opt := b.Options()
	data := b.Bytes()
	sum := sha256.Sum256(data)
	m.IDSize, m.Length, m.SHA256 = opt.IDSize, len(data), hex.EncodeToString(sum[:])
	m.IDByteOrder, m.ScalarByteOrder = orderName(opt.IDOrder), orderName(opt.ScalarOrder)
	side := name + "-events.json"
	sideFormat := FormatClassEvents
	switch m.Format {
	case FormatHeapDump:
		m.Level = opt.Level
		if m.HeapDumpEvent == nil {
			m.HeapDumpEvent = &HeapDumpEvent{}
		}
		m.HeapDumpEvent.DumpLevel, m.HeapDumpEvent.NumTraces = opt.Level, len(m.HeapDumpEvent.Traces)
		fillTraces(m.HeapDumpEvent.Traces)
		m.Classes = side
	case FormatObjectDump:
		m.Level = 2
		m.ObjectDumpEvent = &ObjectDumpEvent{DataLen: len(data)}
		m.Classes = side
	case FormatMonitorDump:
		sideFormat = FormatMonitorEvents
		m.Events = side
	default:
		return "", fmt.Errorf("jvmpitest: capture format %q", m.Format)
	}
	switch ev := events.(type) {
	case *ClassEvents:
		if sideFormat != FormatClassEvents {
			return "", fmt.Errorf("jvmpitest: a %s capture takes *MonitorEvents", m.Format)
		}
		for i := range ev.ClassLoad {
			c := &ev.ClassLoad[i]
			c.NumStaticFields, c.NumInstanceFields = len(c.Statics), len(c.Fields)
		}
	case *MonitorEvents:
		if sideFormat != FormatMonitorEvents {
			return "", fmt.Errorf("jvmpitest: a %s capture takes *ClassEvents", m.Format)
		}
		ev.Event.NumTraces = len(ev.Event.Traces)
		fillTraces(ev.Event.Traces)
	default:
		return "", fmt.Errorf("jvmpitest: side channel of type %T", events)
	}
	sideJSON, err := json.Marshal(events)
	if err != nil {
		return "", err
	}
	// The side channel's own keys go first, then the events' keys.
	head := fmt.Sprintf(`{"format":%q,"id_size":%d,`, sideFormat, opt.IDSize)
	sideJSON = append([]byte(head), sideJSON[1:]...)
	manifestJSON, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	manifest := filepath.Join(dir, name+".json")
	for path, content := range map[string][]byte{
		filepath.Join(dir, name+".bin"): data,
		filepath.Join(dir, side):        sideJSON,
		manifest:                        manifestJSON,
	} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return "", err
		}
	}
	return manifest, nil
}
