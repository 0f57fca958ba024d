package jvmpi

import (
	"encoding/binary"
	"fmt"
)

// ParseKind reads a buffer kind as the command line names it: heap,
// object or monitor.
func ParseKind(s string) (Kind, error) {
	switch s {
	case "heap":
		return HeapDump, nil
	case "object":
		return ObjectDump, nil
	case "monitor":
		return MonitorDump, nil
	}
	return 0, fmt.Errorf("JVMPI buffer kind %q: expected heap, object or monitor", s)
}

// ParseByteOrders reads the byte orders of a buffer as the command line
// names them: big (pointers and scalars big-endian, JDK Classic on SPARC),
// little (both little-endian) or ids-little (little-endian pointers and
// big-endian scalars, as HotSpot wrote them on x86,
// docs/jvmpi.md#encoding-rules).
func ParseByteOrders(s string) (ids, scalars binary.ByteOrder, err error) {
	switch s {
	case "big":
		return binary.BigEndian, binary.BigEndian, nil
	case "little":
		return binary.LittleEndian, binary.LittleEndian, nil
	case "ids-little":
		return binary.LittleEndian, binary.BigEndian, nil
	}
	return nil, nil, fmt.Errorf("byte order %q: expected big, little or ids-little", s)
}

// BareCapture describes a buffer that has no manifest beside it: opt says
// what it is (Classes is ignored), and its side channels are empty, so
// class dumps cannot be stepped over and threads and raw monitors have no
// names.
func BareCapture(path string, opt Options) *Capture {
	opt.Name = path
	opt.Classes = nil
	if opt.Kind == ObjectDump {
		opt.Level = 2
	}
	c := &Capture{BufferPath: path, Options: opt}
	if opt.Kind == MonitorDump {
		c.MonitorEvents = &MonitorEvents{}
	} else {
		c.ClassEvents = &ClassLoadEvents{}
	}
	return c
}

// Bare reports whether the capture is a bare buffer, described by
// BareCapture rather than by a manifest.
func (c *Capture) Bare() bool { return c.ManifestPath == "" }

// Disagreements lists where opt, a description of the buffer given on the
// command line, differs from what the capture's manifest says.
func (c *Capture) Disagreements(opt Options) []string {
	var out []string
	m := c.Options
	if opt.Kind != m.Kind {
		out = append(out, fmt.Sprintf("kind %s, the manifest says %s", opt.Kind, m.Kind))
	}
	if m.Kind == HeapDump && opt.Kind == HeapDump && opt.Level != m.Level {
		out = append(out, fmt.Sprintf("level %d, the manifest says %d", opt.Level, m.Level))
	}
	if opt.IDSize != m.IDSize {
		out = append(out, fmt.Sprintf("id size %d, the manifest says %d", opt.IDSize, m.IDSize))
	}
	if opt.IDOrder != nil && opt.IDOrder != m.IDOrder {
		out = append(out, fmt.Sprintf("%s pointers, the manifest says %s", orderName(opt.IDOrder), orderName(m.IDOrder)))
	}
	if opt.ScalarOrder != nil && opt.ScalarOrder != m.ScalarOrder {
		out = append(out, fmt.Sprintf("%s scalars, the manifest says %s", orderName(opt.ScalarOrder), orderName(m.ScalarOrder)))
	}
	return out
}

func orderName(o binary.ByteOrder) string {
	if o == binary.LittleEndian {
		return "little-endian"
	}
	return "big-endian"
}
