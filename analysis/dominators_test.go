package analysis

import "testing"

// TestDominatorReachablePercent: a share of the reachable heap; none of an
// empty one.
func TestDominatorReachablePercent(t *testing.T) {
	d := DominatorReport{ReachableBytes: 2000}
	for _, c := range []struct {
		retained int64
		want     float64
	}{{1000, 50}, {250, 12.5}, {0, 0}, {2000, 100}} {
		if got := d.ReachablePercent(c.retained); got != c.want {
			t.Errorf("%d of 2000 bytes: %v%%, want %v%%", c.retained, got, c.want)
		}
	}
	if got := (DominatorReport{}).ReachablePercent(100); got != 0 {
		t.Errorf("share of an empty heap %v%%, want 0", got)
	}
}
