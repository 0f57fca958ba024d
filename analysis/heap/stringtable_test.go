package heap

import (
	"math/rand/v2"
	"testing"
)

// TestRepeatedSketchesMissesNone marks sketches of which some come
// several times (some of them far apart, as digests and lengths are)
// and requires every repeated one to pass, and nearly all of those that
// come once not to: a table of four slots per sketch leaves a sketch
// found once passing only when others fall in both of its slots.
func TestRepeatedSketchesMissesNone(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sketches []uint64
	times := map[uint64]int{}
	for range 100_000 {
		v := rng.Uint64()
		if rng.IntN(4) == 0 {
			v &= 0xffffffff00000fff // short arrays: their lengths differ in a few bits
		}
		n := 1 + rng.IntN(3)
		for range n {
			sketches = append(sketches, v)
		}
		times[v] += n
	}
	rng.Shuffle(len(sketches), func(i, j int) { sketches[i], sketches[j] = sketches[j], sketches[i] })
	r := newRepeatedSketches(sketches)
	defer r.free()
	once, passed := 0, 0
	for v, n := range times {
		switch {
		case n >= 2 && !r.has(v):
			t.Fatalf("sketch %#x comes %d times: not found repeated", v, n)
		case n == 1:
			once++
			if r.has(v) {
				passed++
			}
		}
	}
	if once == 0 || passed*10 > once {
		t.Errorf("%d of %d sketches found once pass as repeated", passed, once)

	}
}
