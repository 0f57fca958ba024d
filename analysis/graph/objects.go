package graph

import (
	"regexp"

	"github.com/hprofctl/hprofctl/model"
)

// MatchingClasses marks the classes whose name matches re.
func MatchingClasses(h *model.Heap, re *regexp.Regexp) []bool {
	match := make([]bool, len(h.Classes))
	for c := range h.Classes {
		match[c] = re.MatchString(h.Classes[c].Name)
	}
	return match
}

// IsClassObject reports whether object i is a class object.
func IsClassObject(h *model.Heap, i model.ObjectIndex) bool {
	c, ok := h.ClassObjectOf(i)
	return ok && h.Classes[c].Object == i
}
