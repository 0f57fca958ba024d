package layout

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
)

// Observation is what a dump showed about the size of one class's objects.
//
// For an instance class, Gap is the smallest distance from one of its
// instances to the next object in address order: an upper bound on the
// instance size, equal to it when an instance was followed contiguously.
// For an array class it is one sample: Length is the array's length and Gap
// the distance to the next object. A class may have several observations.
type Observation struct {
	Class  int
	Length int64
	Gap    int64
}

// Infer picks the Config that best explains a dump whose identifiers are
// idSize bytes wide, and says in a sentence why.
//
// The release is narrowed from the classes present (java.lang.String's
// fields, java.lang.Module, ...); then every layout HotSpot can have is
// scored on two kinds of evidence. Object addresses: a class whose computed
// size equals its smallest observed gap counts for a layout, a class whose
// computed size exceeds a gap (impossible for real addresses) counts heavily
// against it. Offset statics (see findClues): every static field holding a
// field offset, array base offset, index scale or word size that the layout
// predicts exactly counts for it. The defaults (compressed oops, 8-byte
// alignment) win ties.
//
// When the gaps cannot be addresses (the JVMTI hprof agent writes 4-byte
// ids that are not, even on 64-bit VMs) or nothing was observed, only the
// offset statics decide, among 32-bit and 64-bit layouts alike; without
// them Infer returns the usual layout for the id size (32-bit for 4-byte
// ids, 64-bit with compressed oops for 8-byte ids) and says so.
func Infer(idSize int, classes []Class, obs []Observation) (Config, string) {
	lo, hi := guessJDK(classes)
	fallback := VM64Compressed
	if idSize == 4 {
		fallback = VM32
	}
	fallback = withRelease(fallback, lo)

	inst, arrs, odd := collect(classes, obs)
	total := len(inst) + len(arrs)
	addresses := total > 0 && odd*10 <= total
	why := ""
	switch {
	case total == 0:
		why = "no object addresses to check"
	case !addresses:
		why = fmt.Sprintf("%d of %d classes show gaps that are not 4-byte multiples: ids are not addresses", odd, total)
	}
	clues := findClues(classes)
	if !addresses && len(clues) == 0 {
		return fallback, fmt.Sprintf("%s; assumed %s", why, fallback)
	}

	need := make([]bool, len(classes))
	if addresses {
		for _, o := range inst {
			need[o.class] = true
		}
	}
	var offFor []bool
	if len(clues) > 0 {
		offFor = make([]bool, len(classes))
		for _, k := range clues {
			if k.kind == clueField {
				need[k.class], offFor[k.class] = true, true
			}
		}
	}
	// Lay classes out under every candidate shape and release at once
	// (alignment is applied when scoring), then score each alignment.
	candShapes := shapes(idSize, lo, hi)
	aligns := []int{8, 16, 32, 64, 128, 256}
	if !addresses {
		// The id size says nothing about the VM, and nothing tells the
		// alignment.
		candShapes = append(shapes(4, lo, hi), shapes(8, lo, hi)...)
		aligns = aligns[:1]
	}
	extra := boundaries(classes, lo, hi)
	var cands []Config
	for _, shape := range candShapes {
		for _, jdk := range releases(shape, lo, hi, extra) {
			c := withRelease(shape, jdk)
			cands = append(cands, c)
			if c.Scheme == Legacy {
				c.Scheme = LegacyOopsFirst
				cands = append(cands, c)
			}
		}
	}
	ends := make([][]int, len(cands))
	offs := make([][][]int, len(cands))
	var wg sync.WaitGroup
	for k := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ends[k], offs[k] = cands[k].lay(classes, need, offFor)
		}()
	}
	wg.Wait()
	best, bestScore := fallback, math.Inf(-1)
	var bestExact, bestOver, bestHits, bestK int
	for k, c := range cands {
		hits := 0
		for i := range clues {
			if c.predict(&clues[i], offs[k]) == clues[i].value {
				hits++
			}
		}
		for _, align := range aligns {
			c.Align = align
			exact, over := 0, 0
			if addresses {
				exact, over = score(c, classes, ends[k], inst, arrs)
			}
			s := float64(exact-8*over+hits) - prior(c, idSize, lo, addresses)
			if s > bestScore {
				best, bestScore, bestExact, bestOver, bestHits, bestK = c, s, exact, over, hits, k
			}
		}
	}
	statics := ""
	if len(clues) > 0 {
		statics = fmt.Sprintf("%d of %d offset statics agree%s", bestHits, len(clues), examples(best, clues, offs[bestK], classes))
	}
	if !addresses {
		if bestHits == 0 {
			return fallback, fmt.Sprintf("%s, and no layout predicts any of the %d offset statics; assumed %s", why, len(clues), fallback)
		}
		return best, fmt.Sprintf("%s; %s: %s", why, best, statics)
	}
	if bestExact == 0 && bestHits == 0 {
		return fallback, fmt.Sprintf("no layout explains the %d observed classes; ids may not be addresses; assumed %s", total, fallback)
	}
	reason := fmt.Sprintf("%s: sizes of %d of %d observed classes equal their smallest gap, %d exceed a gap", best, bestExact, total, bestOver)
	if statics != "" {
		reason += "; " + statics
	}
	return best, reason
}

// examples renders up to three clues that c predicts, from different
// classes, as " (e.g. A.xOffset = 12, ...)".
func examples(c Config, clues []clue, offs [][]int, classes []Class) string {
	var parts []string
	seen := make(map[int]bool)
	for i := range clues {
		k := &clues[i]
		if len(parts) == 3 || seen[k.holder] || c.predict(k, offs) != k.value {
			continue
		}
		seen[k.holder] = true
		parts = append(parts, k.describe(classes))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (e.g. " + strings.Join(parts, ", ") + ")"
}

// withRelease returns c for release jdk, with the scheme that release uses.
func withRelease(c Config, jdk int) Config {
	c.JDK = jdk
	if jdk >= 15 {
		c.Scheme = Compact15
	}
	return c
}

// instObs is the smallest gap seen after an instance of one class.
type instObs struct {
	class int
	gap   int64
}

// arrObs holds one array class's (length, gap) samples.
type arrObs struct {
	class   int
	samples []Observation
}

// collect sorts observations into per-class minima for instance classes and
// sample lists for array classes, and counts the classes with a gap that no
// HotSpot heap can show (not a multiple of 4, or under 8 bytes).
func collect(classes []Class, obs []Observation) (inst []instObs, arrs []arrObs, odd int) {
	minGap := make(map[int]int64)
	samples := make(map[int][]Observation)
	for _, o := range obs {
		if o.Class < 0 || o.Class >= len(classes) || o.Gap <= 0 || skipped(classes[o.Class].Name) {
			continue
		}
		if classes[o.Class].Elem != 0 {
			samples[o.Class] = append(samples[o.Class], o)
			continue
		}
		if g, ok := minGap[o.Class]; !ok || o.Gap < g {
			minGap[o.Class] = o.Gap
		}
	}
	bad := func(g int64) bool { return g%4 != 0 || g < 8 }
	for i := range classes {
		if g, ok := minGap[i]; ok {
			inst = append(inst, instObs{i, g})
			if bad(g) {
				odd++
			}
		}
		if s, ok := samples[i]; ok {
			arrs = append(arrs, arrObs{i, s})
			for _, o := range s {
				if bad(o.Gap) {
					odd++
					break
				}
			}
		}
	}
	return inst, arrs, odd
}

// skipped reports classes whose instances have no fixed size: Loom stack
// chunks. Class mirrors, which hold static fields from JDK 7 on, are never
// smaller than an instance of java.lang.Class, the size the smallest gap
// after one shows (mirrors of primitive types and array classes have no
// static fields).
func skipped(name string) bool {
	return name == "jdk.internal.vm.StackChunk"
}

// score counts the observed classes config c sizes exactly and those it
// sizes beyond a gap seen in the dump.
func score(c Config, classes []Class, ends []int, inst []instObs, arrs []arrObs) (exact, over int) {
	for _, o := range inst {
		size := int64(alignUp(ends[o.class], c.Align))
		switch {
		case size == o.gap:
			exact++
		case size > o.gap:
			over++
		}
	}
	for _, a := range arrs {
		elem := classes[a.class].Elem
		hit, miss := false, false
		for _, o := range a.samples {
			size := c.ArraySize(elem, o.Length)
			if size == o.Gap {
				hit = true
			} else if size > o.Gap {
				miss = true
			}
		}
		if miss {
			over++
		} else if hit {
			exact++
		}
	}
	return exact, over
}

// prior returns a penalty below one point that ranks equally good configs:
// the defaults of the era first and, where ids are not addresses, the usual
// VM for the id size.
func prior(c Config, idSize, jdk int, addresses bool) float64 {
	p := 0.0
	if c.Align != 8 {
		p += 0.1 + float64(c.Align)/10000
	}
	if c.Word == 8 && (c.Header != 12 || c.Ref != 4) {
		p += 0.2
		if c.Header == 8 {
			p += 0.1
		}
	}
	if !addresses && c.Word != idSize {
		p += 0.02
	}
	if c.Scheme == LegacyOopsFirst {
		p += 0.15
	}
	if c.JDK != jdk {
		p += 0.05
	}
	return p
}

// shapes lists the header and reference sizes HotSpot can use with ids of
// idSize bytes in releases lo to hi, each with the legacy scheme.
func shapes(idSize, lo, hi int) []Config {
	if idSize == 4 {
		return []Config{VM32}
	}
	out := []Config{VM64Compressed, VM64}
	if hi >= 8 {
		// -XX:-UseCompressedClassPointers with compressed oops.
		out = append(out, Config{Word: 8, Header: 16, Ref: 4, Scheme: Legacy})
	}
	if hi >= 15 {
		// Compressed class pointers without compressed oops (JDK-8241825).
		out = append(out, Config{Word: 8, Header: 12, Ref: 8, Scheme: Legacy})
	}
	if hi >= 24 {
		// Compact object headers (JEP 450, 519).
		out = append(out,
			Config{Word: 8, Header: 8, Ref: 4, Scheme: Legacy},
			Config{Word: 8, Header: 8, Ref: 8, Scheme: Legacy})
	}
	return out
}

// releases lists the releases worth trying for a shape: the lowest plausible
// release of each era (legacy layout, JDK 15 layout, JDK 22 array offsets,
// JDK 25 references leading after a superclass's) that lo..hi spans, the
// shape exists in and that makes a difference, and the releases in extra
// (where the hidden fields of a class present change).
func releases(shape Config, lo, hi int, extra []int) []int {
	min := lo
	switch {
	case shape.Header == 8 && shape.Word == 8:
		min = maxInt(min, 24)
	case shape.Header == 12 && shape.Ref == 8:
		min = maxInt(min, 15)
	case shape.Header == 16 && shape.Ref == 4:
		min = maxInt(min, 8)
	}
	eras := []int{min, 15, 25}
	// JDK 22 moved array elements only where the length field does not
	// end on a word boundary.
	if min >= 22 || (shape.Header+4)%shape.Word != 0 {
		eras = append(eras, 22)
	}
	eras = append(eras, extra...)
	sort.Ints(eras)
	var out []int
	for _, era := range eras {
		if era >= min && era <= hi && (len(out) == 0 || out[len(out)-1] != era) {
			out = append(out, era)
		}
	}
	return out
}

// boundaries returns the releases in lo..hi where the hidden or @Contended
// fields of a class present in the dump change.
func boundaries(classes []Class, lo, hi int) []int {
	present := make(map[string]bool)
	for i := range classes {
		present[classes[i].Name] = true
	}
	var out []int
	add := func(class string, from, to int) {
		if !present[class] {
			return
		}
		changes := []int{from}
		if to != 0 {
			changes = append(changes, to+1)
		}
		for _, r := range changes {
			if r > lo && r <= hi {
				out = append(out, r)
			}
		}
	}
	for i := range injections {
		add(injections[i].class, injections[i].from, injections[i].to)
	}
	for i := range contentions {
		add(contentions[i].class, contentions[i].from, contentions[i].to)
	}
	return out
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// guessJDK narrows the release a dump comes from to [lo, hi] using classes
// that every VM loads at startup.
func guessJDK(classes []Class) (lo, hi int) {
	lo, hi = 5, 99
	has := make(map[string]*Class, 8)
	for i := range classes {
		switch classes[i].Name {
		case "java.lang.String", "java.lang.Thread", "java.lang.invoke.MethodHandle",
			"java.lang.Module", "java.lang.invoke.ResolvedMethodName",
			"java.lang.Thread$FieldHolder", "sun.misc.Launcher", "java.lang.reflect.Executable",
			"java.lang.reflect.AccessibleObject", "java.lang.Class":
			has[classes[i].Name] = &classes[i]
		}
	}
	narrow := func(a, b int) {
		lo, hi = maxInt(lo, a), min(hi, b)
	}
	if s := has["java.lang.String"]; s != nil {
		switch typesKey(s.Fields) {
		case "2,10,10,10": // value, offset, count, hash
			narrow(5, 7)
		case "2,10,10": // value, hash, hash32 (7u6 and later 7 updates)
			narrow(7, 7)
		case "2,10": // value, hash
			narrow(7, 8)
		case "2,8,10": // value (byte[]), coder, hash
			narrow(9, 12)
		case "2,8,10,4": // value, coder, hash, hashIsZero
			narrow(13, 99)
		}
	}
	if has["java.lang.invoke.MethodHandle"] != nil {
		narrow(7, 99)
	} else if lo <= 7 && has["java.lang.String"] != nil {
		narrow(5, 6)
	}
	if a := has["java.lang.reflect.AccessibleObject"]; a != nil && hi <= 6 {
		// JDK 5 still had the instance field securityCheckCache.
		if typesKey(a.Fields) == "4,2" {
			narrow(5, 5)
		} else {
			narrow(6, 6)
		}
	}
	if has["java.lang.reflect.Executable"] != nil {
		narrow(8, 99)
	}
	if has["java.lang.Module"] != nil {
		narrow(9, 99)
	} else if has["sun.misc.Launcher"] != nil {
		narrow(5, 8)
	}
	if has["java.lang.invoke.ResolvedMethodName"] != nil {
		narrow(10, 99)
	}
	if c := has["java.lang.Class"]; c != nil {
		// Class.signers became a declared field in JDK 24,
		// Class.protectionDomain in JDK 25.
		switch {
		case contains(c.Names, "protectionDomain"):
			narrow(25, 99)
		case contains(c.Names, "signers"):
			narrow(24, 99)
		}
	}
	if has["java.lang.Thread$FieldHolder"] != nil {
		narrow(19, 99)
	} else if has["java.lang.Thread"] != nil {
		narrow(5, 18)
	}
	if lo > hi {
		hi = lo
	}
	return lo, hi
}

// typesKey renders field types as "2,10,...".
func typesKey(ts []FieldType) string {
	b := make([]byte, 0, 3*len(ts))
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", t)
	}
	return string(b)
}
