package jvmpi

import (
	"encoding/binary"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for s, want := range map[string][2]binary.ByteOrder{
		"big":        {binary.BigEndian, binary.BigEndian},
		"little":     {binary.LittleEndian, binary.LittleEndian},
		"ids-little": {binary.LittleEndian, binary.BigEndian},
	} {
		ids, scalars, err := ParseByteOrders(s)
		if err != nil || ids != want[0] || scalars != want[1] {
			t.Errorf("%s: %v %v %v", s, ids, scalars, err)
		}
	}
	if _, _, err := ParseByteOrders("ids-big"); err == nil {
		t.Error("ids-big: no error")
	}
	for s, want := range map[string]Kind{"heap": HeapDump, "object": ObjectDump, "monitor": MonitorDump} {
		if k, err := ParseKind(s); err != nil || k != want {
			t.Errorf("%s: %v %v", s, k, err)
		}
	}
	if _, err := ParseKind("thread"); err == nil {
		t.Error("thread: no error")
	}
	c := BareCapture("x.bin", Options{Kind: ObjectDump, Level: 0, IDSize: 4})
	if !c.Bare() || c.Options.Level != 2 || c.ClassEvents == nil || c.MonitorEvents != nil {
		t.Errorf("bare object dump capture: %+v", c)
	}
}
