package model

import (
	"fmt"
	"strings"
)

// A dump names each class's superclass by id, and nothing keeps a corrupt
// dump from naming them in a loop (A → B → C → B, or A → A), naming an
// array class, or naming an object that is no class. Every walk of a
// superclass chain in the model goes through Heap.Supers, which takes at
// most one step per class; the builder checks the chains while the dump
// streams (chainDumped) and, once every CLASS_DUMP is read, cuts each loop
// (cutSuperLoops) and reports the other links (reportArraySupers,
// reportObjectSupers). The layout package, which gets the classes with
// their superclasses by position, orders them with a cycle-safe walk of its
// own.

// maxReportedLoops bounds the loops a superclass-loop anomaly spells out.
const maxReportedLoops = 5

// chainDumped reports whether class c and every class above it have been
// dumped and the chain ends. A chain that runs into a loop of superclass
// links does not: its classes are marked, so that their instances are put
// aside without walking the loop again, and the walk stops at the first
// class it meets twice, so that it costs no more than the chain's length.
func (b *builder) chainDumped(c ClassIndex) bool {
	b.walks++
	for k := range b.h.Supers(c) {
		ki := &b.infos[k]
		if !ki.dumped {
			return false
		}
		if ki.loops || ki.walk == b.walks {
			for k := range b.h.Supers(c) {
				if b.infos[k].loops {
					break
				}
				b.infos[k].loops = true
			}
			return false
		}
		ki.walk = b.walks
	}
	return true
}

// cutSuperLoops cuts every loop of superclass links, so that every chain
// ends, and reports the loops as a superclass-loop anomaly. The chains are
// walked up from each class that no class extends, in dump order, then
// from the classes left (loops nothing extends); a walk that meets a class
// of its own path again has found a loop and cuts the link that closed it.
// So the class a walk started from keeps every class of its chain, the
// loop's included, once: its instances, and those of the classes in the
// loop, are decoded with the fields of each class of their chain once, as
// far as their bytes go (a wrong guess shows as instance-size-mismatch).
func (b *builder) cutSuperLoops() {
	h := b.h
	extended := make([]bool, len(h.Classes))
	for i := range h.Classes {
		if s := h.Classes[i].Super; s != NoClass {
			extended[s] = true
		}
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(h.Classes))
	var path []ClassIndex
	var spelled []string
	loops := 0
	offset := int64(-1)
	walk := func(start ClassIndex) {
		path = path[:0]
		k := start
		for k != NoClass && state[k] == unseen {
			state[k] = onPath
			path = append(path, k)
			k = h.Classes[k].Super
		}
		if k != NoClass && state[k] == onPath {
			last := path[len(path)-1]
			if loops == 0 {
				offset = b.infos[last].offset
			}
			if loops < maxReportedLoops {
				names := make([]string, 0, len(path)+1)
				for _, p := range path {
					names = append(names, h.Classes[p].Name)
				}
				names = append(names, h.Classes[k].Name)
				spelled = append(spelled, fmt.Sprintf("%s (cut at %s → %s)", spellChain(names), h.Classes[last].Name, h.Classes[k].Name))
			}
			loops++
			h.Classes[last].Super = NoClass
		}
		for _, p := range path {
			state[p] = done
		}
	}
	for i := range h.Classes {
		if !extended[i] {
			walk(ClassIndex(i))
		}
	}
	for i := range h.Classes {
		if state[i] == unseen {
			walk(ClassIndex(i))
		}
	}
	for i := range b.infos {
		b.infos[i].loops = false
	}
	if loops == 0 {
		return
	}
	more := ""
	if loops > len(spelled) {
		more = fmt.Sprintf("; %d more", loops-len(spelled))
	}
	b.anomaly("superclass-loop", int64(loops), offset,
		"superclass chains loop: %s%s. Each loop is cut at the link that closes it, whose class is taken to have no superclass: a class in or below a loop gets the fields of every class of its chain once, and its instances' references are decoded as far as those fields go",
		strings.Join(spelled, "; "), more)
}

// spellChain joins class names with arrows, eliding the middle of a long
// chain.
func spellChain(names []string) string {
	const head, tail = 3, 5
	if len(names) > head+tail+1 {
		names = append(append(names[:head:head], "…"), names[len(names)-tail:]...)
	}
	return strings.Join(names, " → ")
}

// reportArraySupers reports the classes that name an array class as their
// superclass, which no Java class can have. The link is kept: the array
// class's fields (a CLASS_DUMP of an array class declares none) are what
// the dump says the instances hold.
func (b *builder) reportArraySupers() {
	h := b.h
	var n int64
	var first string
	offset := int64(-1)
	for i := range h.Classes {
		s := h.Classes[i].Super
		if s == NoClass || arrayElemType(h.Classes[s].Name) == 0 {
			continue
		}
		if n == 0 {
			first, offset = fmt.Sprintf("%s → %s", h.Classes[i].Name, h.Classes[s].Name), b.infos[i].offset
		}
		n++
	}
	if n > 0 {
		b.anomaly("superclass-invalid", n, offset, "classes whose superclass is an array class, e.g. %s: the array class's fields (normally none) are counted as the dump says", first)
	}
}

// reportObjectSupers reports the classes whose superclass id is no class
// of the dump but one of its instances or arrays. Such a superclass is
// kept as the dump names it, a class without a CLASS_DUMP: its fields are
// unknown, so the references of the instances below it are lost, as
// missing-class-dump says.
func (b *builder) reportObjectSupers() {
	h := b.h
	var n int64
	var first string
	offset := int64(-1)
	for i := range h.Classes {
		s := h.Classes[i].Super
		if s == NoClass || b.infos[s].dumped {
			continue
		}
		obj, ok := h.Lookup(h.Classes[s].ID)
		if !ok {
			continue
		}
		if n == 0 {
			what := "an object"
			if c := h.ClassOf(obj); c != NoClass {
				what = "an object of class " + h.Classes[c].Name
			}
			first = fmt.Sprintf("%s names 0x%x, %s", h.Classes[i].Name, h.Classes[s].ID, what)
			offset = b.infos[i].offset
		}
		n++
	}
	if n > 0 {
		b.anomaly("superclass-invalid", n, offset, "classes whose superclass id is an object of the dump, not a class: %s; its fields are unknown, so the references of the instances below it are lost", first)
	}
}
