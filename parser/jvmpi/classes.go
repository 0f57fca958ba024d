package jvmpi

import (
	"fmt"
	"strconv"
	"strings"
)

// HexID is a pointer-sized value as the capture's JSON files write it: a
// hex string ("0x00007f3a10000040"), or null for NULL.
type HexID uint64

// UnmarshalJSON reads a hex string or null.
func (h *HexID) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*h = 0
		return nil
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		return fmt.Errorf("id %s: expected a hex string or null", s)
	}
	digits, ok := strings.CutPrefix(strings.ToLower(u), "0x")
	if !ok {
		return fmt.Errorf("id %q: expected a 0x prefix", u)
	}
	v, err := strconv.ParseUint(digits, 16, 64)
	if err != nil {
		return fmt.Errorf("id %q: %w", u, err)
	}
	*h = HexID(v)
	return nil
}

// MarshalJSON writes the id as a hex string, or null for 0.
func (h HexID) MarshalJSON() ([]byte, error) {
	if h == 0 {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprintf("\"0x%x\"", uint64(h))), nil
}

// FieldInfo is a field of a CLASS_LOAD event.
type FieldInfo struct {
	Name      string `json:"field_name"`
	Signature string `json:"field_signature"`
}

// Type is the basic type of the field's signature.
func (f FieldInfo) Type() Type { return TypeOfSignature(f.Signature) }

// MethodInfo is a method of a CLASS_LOAD event.
type MethodInfo struct {
	Name      string `json:"method_name"`
	Signature string `json:"method_signature"`
	StartLine int32  `json:"start_lineno"`
	EndLine   int32  `json:"end_lineno"`
	ID        HexID  `json:"method_id"`
}

// ClassInfo is a CLASS_LOAD event of the class-load side channel: what a
// class dump and the instance dumps of the class cannot be decoded
// without. Statics and Fields are in the order the dump writes the values,
// the class's own fields only; SuperID is not part of JVMPI's event
// (docs/jvmpi.md#class-load-side-channel).
type ClassInfo struct {
	Name          string       `json:"class_name"`
	SourceName    string       `json:"source_name"`
	NumInterfaces int          `json:"num_interfaces"`
	Methods       []MethodInfo `json:"methods"`
	Statics       []FieldInfo  `json:"statics"`
	Fields        []FieldInfo  `json:"instances"`
	ID            HexID        `json:"class_id"`
	SuperID       HexID        `json:"super_id"`
}

// ThreadStart is a THREAD_START event: the thread's names, its
// java.lang.Thread object and the JNIEnv* that roots and traces name it by.
type ThreadStart struct {
	Name       string `json:"thread_name"`
	GroupName  string `json:"group_name"`
	ParentName string `json:"parent_name"`
	ThreadID   HexID  `json:"thread_id"`
	EnvID      HexID  `json:"thread_env_id"`
}

// GlobalRefAlloc is a JNI_GLOBALREF_ALLOC event.
type GlobalRefAlloc struct {
	ObjectID HexID `json:"obj_id"`
	RefID    HexID `json:"ref_id"`
}

// ClassLoadEvents is the class-load side channel of heap and object dump
// captures (format "jvmpi-class-load-events").
type ClassLoadEvents struct {
	Format     string           `json:"format"`
	IDSize     int              `json:"id_size"`
	Classes    []ClassInfo      `json:"class_load"`
	Threads    []ThreadStart    `json:"thread_start"`
	GlobalRefs []GlobalRefAlloc `json:"jni_globalref_alloc"`
}

// ClassTable finds the CLASS_LOAD event of a class by its class id.
type ClassTable struct {
	byID map[uint64]*ClassInfo
}

// NewClassTable makes a table of classes by class id; a repeated id, or super_id
// links that loop, is an error, so every superclass chain of a table ends.
func NewClassTable(classes []ClassInfo) (*ClassTable, error) {
	t := &ClassTable{byID: make(map[uint64]*ClassInfo, len(classes))}
	for i := range classes {
		c := &classes[i]
		if c.ID == 0 {
			return nil, fmt.Errorf("class-load event of %s has no class_id", c.Name)
		}
		if old, dup := t.byID[uint64(c.ID)]; dup {
			return nil, fmt.Errorf("class id 0x%x is given to both %s and %s", uint64(c.ID), old.Name, c.Name)
		}
		for _, f := range append(c.Statics[:len(c.Statics):len(c.Statics)], c.Fields...) {
			if f.Type() == 0 {
				return nil, fmt.Errorf("class %s: field %s has the invalid signature %q", c.Name, f.Name, f.Signature)
			}
		}
		t.byID[uint64(c.ID)] = c
	}
	if err := t.checkSupers(classes); err != nil {
		return nil, err
	}
	return t, nil
}

// checkSupers fails when super_id links loop (A → B → C → B, or A → A):
// the fields of an instance of a class in or below a loop have no order,
// so no instance dump of it could be read. Each class is walked once.
func (t *ClassTable) checkSupers(classes []ClassInfo) error {
	const (
		onPath = iota + 1
		done
	)
	state := make(map[uint64]uint8, len(classes))
	var path []*ClassInfo
	for i := range classes {
		path = path[:0]
		id := uint64(classes[i].ID)
		for state[id] == 0 {
			c, ok := t.byID[id]
			if !ok {
				break
			}
			state[id] = onPath
			path = append(path, c)
			id = uint64(c.SuperID)
		}
		if state[id] == onPath {
			names := make([]string, 0, len(path)+1)
			for _, c := range path {
				names = append(names, c.Name)
			}
			return fmt.Errorf("the superclass chain (super_id) loops: %s → %s", strings.Join(names, " → "), t.byID[id].Name)
		}
		for _, c := range path {
			state[uint64(c.ID)] = done
		}
	}
	return nil
}

// Lookup returns the class with class id id.
func (t *ClassTable) Lookup(id uint64) (*ClassInfo, bool) {
	if t == nil {
		return nil, false
	}
	c, ok := t.byID[id]
	return c, ok
}
