package heap

import (
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// valueKey stands for the value of a String: its array's two hashes, and
// its array's length and element type and its coder in one word (never
// 0: the low bit is set, which marks a slot of a valueTable as used).
type valueKey [3]uint64

// stringKeyOf is the key of the String value v.
func stringKeyOf(v *model.StringDigest) valueKey {
	return valueKey{v.Digest[0], v.Digest[1], uint64(uint32(v.Length))<<24 | uint64(uint8(v.Elem))<<16 | uint64(uint8(v.Coder))<<8 | 1}
}

// slotWords is the size of a valueTable's slot in words: the key's three,
// the first String's k with the count of Strings, and the count of
// arrays.
const slotWords = 5

// valueTable counts the Strings of each value, by open addressing in one
// table of words from model/bigmem (the build's memory budget bounds it
// as it does the heap's tables). A slot holds a value's key, the lowest k
// of the Strings that hold it << 32 | their count, and how many of them
// are first holders of their array.
type valueTable struct {
	words []uint64
	used  int
	// queued are the Strings queue holds until flush adds them, the
	// first n of the array; touched keeps flush's first reads of their
	// slots from being left out.
	queued  [queueLength]queuedString
	n       int
	touched uint64
}

// queuedString is a String that valueTable.queue holds: its value's
// key, its k, and 1 when it is the first holder of its array.
type queuedString struct {
	key       valueKey
	k, arrays uint32
}

// queueLength is how many Strings a valueTable queues before it adds
// them.
const queueLength = 32

// newValueTable returns an empty table.
func newValueTable() *valueTable {
	return &valueTable{words: bigmem.Make[uint64](slotWords << 10)}
}

// slots is the number of slots of t, a power of 2.
func (t *valueTable) slots() int { return len(t.words) / slotWords }

// add counts count Strings of value key, of which first is the lowest k
// and arrays are first holders of their array.
func (t *valueTable) add(key *valueKey, first, count, arrays uint32) {
	if (t.used+1)*8 > t.slots()*5 {
		t.grow()
	}
	t.put(key, first, count, arrays)
}

// put is add into a table with room for one more value.
func (t *valueTable) put(key *valueKey, first, count, arrays uint32) {
	mask := t.slots() - 1
	for s := int(key[0]) & mask; ; s = (s + 1) & mask {
		slot := t.words[s*slotWords : s*slotWords+slotWords]
		if slot[2] == 0 {
			slot[0], slot[1], slot[2] = key[0], key[1], key[2]
			slot[3], slot[4] = uint64(first)<<32|uint64(count), uint64(arrays)
			t.used++
			return
		}
		if slot[0] == key[0] && slot[1] == key[1] && slot[2] == key[2] {
			slot[3] = uint64(min(first, uint32(slot[3]>>32)))<<32 | uint64(uint32(slot[3])+count)
			slot[4] += uint64(arrays)
			return
		}
	}
}

// queue adds String k of the value v (arrays 1 when it is the first
// holder of its array) once queueLength Strings are queued (flush).
func (t *valueTable) queue(v *model.StringDigest, k, arrays uint32) {
	q := &t.queued[t.n]
	q.key, q.k, q.arrays = stringKeyOf(v), k, arrays
	if t.n++; t.n == queueLength {
		t.flush()
	}
}

// flush adds the Strings queued. Their slots are read first, one after
// the other, so that the processor waits for the memory of all at once
// rather than for each in turn: most values of a large heap lie in parts
// of the table that are not in its caches.
func (t *valueTable) flush() {
	for (t.used+t.n)*8 > t.slots()*5 {
		t.grow()
	}
	queued := t.queued[:t.n]
	mask := t.slots() - 1
	for i := range queued {
		t.touched += t.words[(int(queued[i].key[0])&mask)*slotWords]
	}
	for i := range queued {
		t.put(&queued[i].key, queued[i].k, 1, queued[i].arrays)
	}
	t.n = 0
}

// grow moves t's values into a table twice as large.
func (t *valueTable) grow() {
	old := t.words
	t.words, t.used = bigmem.Make[uint64](2*len(old)), 0
	t.addAll(old)
	bigmem.Free(old)
}

// merge adds the values of u to t.
func (t *valueTable) merge(u *valueTable) { t.addAll(u.words) }

// addAll adds the values of the slots words to t.
func (t *valueTable) addAll(words []uint64) {
	for s := 0; s < len(words); s += slotWords {
		if slot := words[s : s+slotWords]; slot[2] != 0 {
			t.add(&valueKey{slot[0], slot[1], slot[2]}, uint32(slot[3]>>32), uint32(slot[3]), uint32(slot[4]))
		}
	}
}

// groups returns the values held by two Strings or more, in no set
// order, for the Strings strs and their arrays valueOf that t counted.
func (t *valueTable) groups(strs, valueOf []model.ObjectIndex) []StringGroup {
	var groups []StringGroup
	for s := 0; s < len(t.words); s += slotWords {
		slot := t.words[s : s+slotWords]
		if count := uint32(slot[3]); slot[2] != 0 && count >= 2 {
			first := slot[3] >> 32
			groups = append(groups, StringGroup{First: strs[first], Count: int64(count), Arrays: int64(slot[4]), Array: valueOf[first]})
		}
	}
	return groups
}

// free releases t's table.
func (t *valueTable) free() {
	bigmem.Free(t.words)
	t.words = nil
}

// repeatedSketches tells the sketches (stringCandidates) that more than
// one String may have: a bit table from model/bigmem that marks the slots
// some sketch falls in and those that two or more fall in, each sketch
// falling in two slots, by two hashes of it. A repeated sketch marks both
// of its slots twice, so that none is missed; a sketch found once passes
// as repeated when other sketches fall in both of its slots, which costs
// its String a read but changes no count. The table has four slots or
// more per sketch, so that few do (about one in twenty where each sketch
// comes once): and 16 MiB for 13 M Strings, small enough for the
// processor's last-level cache as the sketches, in no order, mark it. The
// two bits of a slot lie in one cache line: the word of its once bit is
// followed by that of its twice bit.
type repeatedSketches struct {
	words []uint64
	shift uint
	// touched keeps newRepeatedSketches's first reads of the slots from
	// being left out.
	touched uint64
}

// newRepeatedSketches returns the repeated sketches among sketches.
func newRepeatedSketches(sketches []uint64) *repeatedSketches {
	bits := uint(10)
	for 1<<bits < 4*len(sketches) {
		bits++
	}
	r := &repeatedSketches{words: bigmem.Make[uint64](2 << (bits - 6)), shift: 64 - bits}
	// The slots of a batch of sketches are read first, one after the
	// other, so that the processor waits for the memory of all at once
	// rather than for each in turn; touched keeps those reads.
	var slots [2 * markBatch]uint64
	var touched uint64
	for lo := 0; lo < len(sketches); lo += markBatch {
		batch := sketches[lo:min(lo+markBatch, len(sketches))]
		for k, v := range batch {
			slots[2*k], slots[2*k+1] = r.slots(v)
			touched += r.words[2*(slots[2*k]>>6)] + r.words[2*(slots[2*k+1]>>6)]
		}
		for _, i := range slots[:2*len(batch)] {
			r.mark(i)
		}
	}
	r.touched = touched
	return r
}

// markBatch is how many sketches newRepeatedSketches marks at a time.
const markBatch = 32

// slots are the slots of sketch v: the top bits of v times two odd
// constants, as v's own bits are far from evenly spread (a digest and a
// length).
func (r *repeatedSketches) slots(v uint64) (i, j uint64) {
	return v * 0x9e3779b97f4a7c15 >> r.shift, v * 0xc2b2ae3d27d4eb4f >> r.shift
}

// mark marks slot i once, or twice when it was marked before.
func (r *repeatedSketches) mark(i uint64) {
	w, bit := 2*(i>>6), uint64(1)<<(i&63)
	r.words[w+1] |= r.words[w] & bit
	r.words[w] |= bit
}

// twice says whether slot i was marked twice.
func (r *repeatedSketches) twice(i uint64) bool { return r.words[2*(i>>6)+1]&(1<<(i&63)) != 0 }

// has says whether sketch v may be held by more than one String.
func (r *repeatedSketches) has(v uint64) bool {
	i, j := r.slots(v)
	return r.twice(i) && r.twice(j)
}

// free releases the table of r.
func (r *repeatedSketches) free() {
	bigmem.Free(r.words)
	r.words = nil
}
