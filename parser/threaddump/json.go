package threaddump

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/model/thread"
)

// jsonParser reads the JSON thread dumps of JDK 21+ (jcmd
// Thread.dump_to_file -format=json), one per top-level object, decoding
// one thread at a time so that a cut file still gives the threads before
// the cut.
type jsonParser struct {
	dec  *json.Decoder
	name string
	base int64 // bytes skipped before the decoder's input
	done bool
}

func newJSONParser(src io.Reader, name string, base int64) *jsonParser {
	dec := json.NewDecoder(src)
	dec.UseNumber()
	return &jsonParser{dec: dec, name: name, base: base}
}

// jsonText is a JSON string or number, kept as text: the JDK writes
// thread ids as strings ("tid": "13"), a schema may write them as numbers.
type jsonText string

func (t *jsonText) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = jsonText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*t = jsonText(n.String())
	return nil
}

// jsonThread is one element of a container's "threads".
type jsonThread struct {
	TID         jsonText `json:"tid"`
	Name        string   `json:"name"`
	State       string   `json:"state"`
	Virtual     bool     `json:"virtual"`
	BlockedOn   string   `json:"blockedOn"`
	WaitingOn   string   `json:"waitingOn"`
	ParkBlocker *struct {
		Object string   `json:"object"`
		Owner  jsonText `json:"owner"` // the owner's tid; newer JDKs only
	} `json:"parkBlocker"`
	Stack         []string `json:"stack"`
	MonitorsOwned []struct {
		Depth int       `json:"depth"`
		Locks []*string `json:"locks"` // null for an eliminated lock
	} `json:"monitorsOwned"`
}

// next returns the next dump of the stream; nil, nil at its end.
func (p *jsonParser) next() (*thread.Dump, error) {
	if p.done || !p.dec.More() {
		p.done = true
		if _, err := p.dec.Token(); err != nil && err != io.EOF {
			return nil, p.syntaxError(err)
		}
		return nil, nil
	}
	d := &thread.Dump{Format: "JSON thread dump"}
	var owners []parkOwner
	err := p.object(func(key string) error {
		if key != "threadDump" {
			return p.skip()
		}
		return p.object(func(key string) error {
			switch key {
			case "time":
				return p.dec.Decode((*jsonText)(&d.Time))
			case "runtimeVersion":
				return p.dec.Decode((*jsonText)(&d.VM))
			case "threadContainers":
				return p.array(func() error {
					return p.object(func(key string) error {
						if key != "threads" {
							return p.skip()
						}
						return p.array(func() error {
							var t jsonThread
							if err := p.dec.Decode(&t); err != nil {
								return err
							}
							snap, owner := t.snapshot()
							d.Threads = append(d.Threads, snap)
							if owner.tid != "" {
								owners = append(owners, owner)
							}
							return nil
						})
					})
				})
			}
			return p.skip()
		})
	})
	attributeOwners(d, owners)
	if err == nil {
		return d, nil
	}
	p.done = true
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		d.Truncated = true
		return d, &FormatError{File: p.name, Offset: p.offset(), Err: ErrTruncated,
			Msg: fmt.Sprintf("input ends inside a JSON thread dump; %d threads were read before the cut", len(d.Threads))}
	}
	if len(d.Threads) > 0 {
		return d, p.syntaxError(err)
	}
	return nil, p.syntaxError(err)
}

func (p *jsonParser) offset() int64 { return p.base + p.dec.InputOffset() }

func (p *jsonParser) syntaxError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FormatError{File: p.name, Offset: p.base + se.Offset, Msg: "JSON thread dump: " + err.Error()}
	}
	var ue *json.UnmarshalTypeError
	if errors.As(err, &ue) {
		return &FormatError{File: p.name, Offset: p.base + ue.Offset, Msg: "JSON thread dump: " + err.Error()}
	}
	var tok *unexpectedToken
	if errors.As(err, &tok) {
		return &FormatError{File: p.name, Offset: p.offset(), Msg: "JSON thread dump: " + err.Error()}
	}
	return &FormatError{File: p.name, Offset: p.offset(), Msg: "reading: " + err.Error(), Err: err}
}

// object reads a JSON object, calling member for each key with the
// decoder positioned at the key's value, which member must consume.
func (p *jsonParser) object(member func(key string) error) error {
	if err := p.expect(json.Delim('{')); err != nil {
		return err
	}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return &unexpectedToken{want: "an object key", found: tok}
		}
		if err := member(key); err != nil {
			return err
		}
	}
	return p.expect(json.Delim('}'))
}

// array reads a JSON array, calling element once per element with the
// decoder positioned at it.
func (p *jsonParser) array(element func() error) error {
	if err := p.expect(json.Delim('[')); err != nil {
		return err
	}
	for p.dec.More() {
		if err := element(); err != nil {
			return err
		}
	}
	return p.expect(json.Delim(']'))
}

func (p *jsonParser) expect(want json.Delim) error {
	tok, err := p.dec.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if tok != want {
		return &unexpectedToken{want: strconv.Quote(want.String()), found: tok}
	}
	return nil
}

// unexpectedToken is a JSON token where the thread-dump layout has
// another.
type unexpectedToken struct {
	want  string
	found json.Token
}

func (e *unexpectedToken) Error() string {
	return fmt.Sprintf("expected %s, found %v", e.want, e.found)
}

// skip consumes one value.
func (p *jsonParser) skip() error {
	var v json.RawMessage
	return p.dec.Decode(&v)
}

// parkOwner is the owner a JSON dump names for a park blocker.
type parkOwner struct {
	lock thread.Lock
	tid  string
}

// snapshot converts a JSON thread; it also returns the owner the dump
// names for the thread's park blocker, if any, for attributeOwners.
func (t jsonThread) snapshot() (thread.Snapshot, parkOwner) {
	var owner parkOwner
	s := thread.Snapshot{ID: string(t.TID), Name: t.Name, State: t.State, Virtual: t.Virtual}
	for _, f := range t.Stack {
		s.Frames = append(s.Frames, parseFrame(f))
	}
	// frame checks a stack depth the dump gives against the stack.
	frame := func(depth int) int {
		if depth < 0 || depth >= len(s.Frames) {
			return -1
		}
		return depth
	}
	if t.ParkBlocker != nil && t.ParkBlocker.Object != "" {
		l := identityLock(thread.LockSynchronizer, t.ParkBlocker.Object)
		s.Locks = append(s.Locks, thread.LockUse{Lock: l, Action: thread.Parks, Frame: frame(0)})
		owner = parkOwner{lock: l, tid: string(t.ParkBlocker.Owner)}
	}
	if t.BlockedOn != "" {
		s.Locks = append(s.Locks, thread.LockUse{Lock: identityLock(thread.LockMonitor, t.BlockedOn), Action: thread.Enters, Frame: frame(0)})
	}
	if t.WaitingOn != "" {
		s.Locks = append(s.Locks, thread.LockUse{Lock: identityLock(thread.LockMonitor, t.WaitingOn), Action: thread.WaitsOn, Frame: frame(0)})
	}
	for _, m := range t.MonitorsOwned {
		for _, name := range m.Locks {
			if name == nil || *name == "" {
				continue
			}
			s.Locks = append(s.Locks, thread.LockUse{Lock: identityLock(thread.LockMonitor, *name), Action: thread.Holds, Frame: frame(m.Depth)})
		}
	}
	return s, owner
}

// identityLock makes a thread.Lock of an identity string "CLASS@HASH".
func identityLock(kind thread.LockKind, identity string) thread.Lock {
	l := thread.Lock{Kind: kind, Name: identity}
	if at := strings.LastIndexByte(identity, '@'); at > 0 {
		if _, err := strconv.ParseUint(identity[at+1:], 16, 64); err == nil {
			l.Class = identity[:at]
		}
	}
	return l
}

// attributeOwners records each park blocker's owner, named by thread id,
// as a lock that owner holds; the dump then records synchronizer owners.
func attributeOwners(d *thread.Dump, owners []parkOwner) {
	if len(owners) == 0 {
		return
	}
	d.SynchronizerOwners = true
	byID := map[string]int{}
	for i := range d.Threads {
		if _, dup := byID[d.Threads[i].ID]; !dup {
			byID[d.Threads[i].ID] = i
		}
	}
	added := map[parkOwner]bool{}
	for _, o := range owners {
		if i, ok := byID[o.tid]; ok && !added[o] {
			added[o] = true
			d.Threads[i].Locks = append(d.Threads[i].Locks, thread.LockUse{Lock: o.lock, Action: thread.Holds, Frame: -1})
		}
	}
}
