package heap

import (
	"fmt"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/graph"
)

// Unreachable is what no GC root reaches: the objects a dominator tree
// leaves out of every retained size (or, with --keep-unreachable, hangs
// under its root), and the reachable heap beside them.
type Unreachable struct {
	Objects, Bytes int64
	ReachableBytes int64
	Kept           bool
}

// UnreachableOf is what the tree r leaves out.
func UnreachableOf(r *graph.Retention) Unreachable {
	return Unreachable{Objects: r.Unreachable, Bytes: r.UnreachableBytes, ReachableBytes: r.ReachableBytes(), Kept: r.KeptUnreachable}
}

// Share is the unreachable bytes' share (of 1) of all the objects' bytes.
func (u Unreachable) Share() float64 {
	total := u.ReachableBytes
	if !u.Kept {
		total += u.Bytes
	}
	if total <= 0 {
		return 0
	}
	return float64(u.Bytes) / float64(total)
}

// Note says how much no GC root reaches and whether the answer leaves it
// out, naming the flag that includes it; "" when every object is
// reachable.
func (u Unreachable) Note() string {
	if u.Objects == 0 {
		return ""
	}
	what := fmt.Sprintf("%s in %s unreachable objects (%.1f%% of the dump's object bytes)",
		humanize.IBytes(uint64(max(u.Bytes, 0))), humanize.Comma(u.Objects), u.Share()*100)
	if u.Kept {
		return what + " counted as reachable (--keep-unreachable)"
	}
	return what + " left out: no GC root reaches them; --keep-unreachable includes them"
}

// Unreachable is what the dominator tree of the report leaves out.
func (d DominatorReport) Unreachable() Unreachable {
	return Unreachable{Objects: d.UnreachableObjects, Bytes: d.UnreachableBytes, ReachableBytes: d.ReachableBytes, Kept: d.KeptUnreachable}
}
