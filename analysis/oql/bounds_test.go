package oql

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Integer arithmetic that leaves 64 bits is an error of the query, not a
// wrapped number; the results at the very edges are exact.
func TestArithmeticOverflow(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	d.checkExprs(t, targetFrom, []exprCase{
		{"-9223372036854775807 - 1", Int(math.MinInt64)},
		{"9223372036854775806 + 1", Int(math.MaxInt64)},
		{"(-9223372036854775807 - 1) * 1", Int(math.MinInt64)},
		{"-4611686018427387904 * 2", Int(math.MinInt64)},
		{"3037000499 * 3037000499", Int(3037000499 * 3037000499)},
		{"-3 * 0", Int(0)},
		{"t.tiny * -1", Int(7)},
	})
	for _, expr := range []string{
		"9223372036854775807 * 2",
		"9223372036854775807 + 1",
		"-9223372036854775807 - 2",
		"(-9223372036854775807 - 1) * -1",
		"4611686018427387904 * 2",
		"3037000500 * 3037000500",
		"0 - (-9223372036854775807 - 1)",
	} {
		_, err := d.run(t, "SELECT "+expr+" FROM "+targetFrom, Options{})
		var qe *Error
		if !errors.As(err, &qe) || !strings.Contains(err.Error(), "overflows a 64-bit integer") {
			t.Errorf("%s: error %v, want a query error saying it overflows", expr, err)
		}
	}
}

// IN looks long lists up in a set, with the answers of comparing element
// by element: integers and floats of one value are equal, strings and
// objects by value and identity. InspectGrowth.index is 0 .. 999 and the
// fixture holds 5320 Strings "duplicate-value-N" (EXPECTED.md).
func TestInWithLongLists(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	for query, want := range map[string]int{
		`SELECT g FROM fixture.InspectGrowth g WHERE g.index IN (SELECT h.index FROM fixture.InspectGrowth h WHERE h.index < 10)`:                                     10,
		`SELECT g FROM fixture.InspectGrowth g WHERE g.index NOT IN (SELECT h.index FROM fixture.InspectGrowth h WHERE h.index < 10)`:                                 990,
		`SELECT g FROM fixture.InspectGrowth g WHERE g.index IN (1.0, 2.0, 3, 4, 5, 6, 7, 8, 9.5)`:                                                                    8,
		`SELECT g FROM fixture.InspectGrowth g WHERE g.index * 1.0 IN (1, 2, 3, 4, 5, 6, 7, 8, 9)`:                                                                    9,
		`SELECT g FROM fixture.InspectGrowth g WHERE g IN (SELECT h FROM fixture.InspectGrowth h WHERE h.index >= 900)`:                                               100,
		`SELECT g FROM fixture.InspectGrowth g WHERE toString(g.index) IN ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "x")`:                                   10,
		`SELECT s FROM java.lang.String s WHERE toString(s) IN (SELECT DISTINCT toString(x) FROM java.lang.String x WHERE toString(x) LIKE "duplicate-value-[0-9]+")`: 5320,
	} {
		if got := d.count(t, query); got != want {
			t.Errorf("%s: %d rows, want %d", query, got, want)
		}
	}
}

// The compiled LIKE patterns kept are bounded, whatever a query compiles.
func TestPatternCacheBounded(t *testing.T) {
	l := newLimits(Options{})
	for n := range 3 * maxPatterns {
		re, err := l.pattern("p" + strconv.Itoa(n) + ".*")
		if err != nil || !re.MatchString("p"+strconv.Itoa(n)+"x") {
			t.Fatalf("pattern %d: %v", n, err)
		}
		if len(l.patterns) > maxPatterns {
			t.Fatalf("%d patterns kept, want at most %d", len(l.patterns), maxPatterns)
		}
	}
}

// A done context stops the evaluation with the context's error; the
// memory bound stops it with a LimitError; errors of the query's text
// are Errors.
func TestRunStops(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.run(t, `SELECT * FROM java.lang.String`, Options{Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
	union := `SELECT * FROM java.lang.String` + strings.Repeat(` UNION (SELECT * FROM java.lang.String)`, 200)
	_, err = d.run(t, union, Options{MaxBytes: 1 << 20})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != 1<<20 {
		t.Errorf("200 UNIONs under 1 MiB: error %v, want a LimitError of 1 MiB", err)
	}
	_, err = d.run(t, `SELECT DISTINCT toString(s) FROM java.lang.String s`, Options{MaxBytes: 4096})
	if !errors.As(err, &le) {
		t.Errorf("DISTINCT under 4 KiB: error %v, want a LimitError", err)
	}
	for _, query := range []string{
		`SELECT s.noSuchField FROM java.lang.String s`,
		`SELECT * FROM "("`,
		`SELECT toString(s) LIKE "(" FROM java.lang.String s`,
		`SELECT s.value * 2 FROM java.lang.String s`,
	} {
		_, err := d.run(t, query, Options{})
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("%s: error %v (%T), want an *Error", query, err, err)
		}
	}
}

// Options.Row receives the rows as they are found, in the order Run
// keeps them otherwise, limited alike; the Result then keeps none.
func TestRowStreaming(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	for _, c := range []struct {
		query string
		limit int
	}{
		{`SELECT g.index FROM fixture.InspectGrowth g UNION (SELECT h.index * 2 FROM fixture.InspectGrowth h)`, 0},
		{`SELECT g.index FROM fixture.InspectGrowth g UNION (SELECT h.index * 2 FROM fixture.InspectGrowth h)`, 1500},
		{`SELECT DISTINCT g.index / 100 FROM fixture.InspectGrowth g`, 0},
		{`SELECT * FROM (SELECT * FROM fixture.InspectGrowth g WHERE g.index < 5)`, 0},
		{`SELECT AS RETAINED SET * FROM fixture.InspectTarget`, 3},
	} {
		kept, err := d.run(t, c.query, Options{Limit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		streamed, err := d.run(t, c.query, Options{Limit: c.limit, Row: func(row []Value) error {
			got = append(got, describe(row[0]))
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(streamed.Rows) != 0 || len(got) != len(kept.Rows) || len(got) == 0 {
			t.Errorf("%s: %d rows streamed (%d kept as well), want the %d rows of Run", c.query, len(got), len(streamed.Rows), len(kept.Rows))
			continue
		}
		for k, row := range kept.Rows {
			if describe(row[0]) != got[k] {
				t.Errorf("%s: row %d streamed %s, kept %s", c.query, k, got[k], describe(row[0]))
				break
			}
		}
	}
	stop := errors.New("enough")
	n := 0
	_, err := d.run(t, `SELECT * FROM java.lang.String`, Options{Row: func([]Value) error { n++; return stop }})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("a Row that fails: %d rows, error %v, want 1 and its error", n, err)
	}
}

// The queries that share a Pool are bounded together: one fails when the
// others have taken the pool, succeeds once they give it back, and gives
// back all it took when it ends, failed or not. The fixture's 5320
// "duplicate-value-N" Strings (EXPECTED.md) make the IN set.
func TestPoolShared(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	query := `SELECT s FROM java.lang.String s WHERE toString(s) IN (SELECT toString(x) FROM java.lang.String x WHERE toString(x) LIKE "duplicate-value-[0-9]+")`
	pool := NewPool(64 << 20)
	pool.take(64<<20 - 4096) // the other queries running
	_, err := d.run(t, query, Options{Pool: pool})
	var le *LimitError
	if !errors.As(err, &le) || !le.Shared || le.Limit != 64<<20 {
		t.Errorf("pool taken by others: error %v, want a shared LimitError of 64 MiB", err)
	}
	if got := pool.used.Load(); got != 64<<20-4096 {
		t.Errorf("after the failed query the pool holds %d bytes, want the others' %d", got, 64<<20-4096)
	}
	pool.give(64<<20 - 4096)
	res, err := d.run(t, query, Options{Pool: pool})
	if err != nil || len(res.Rows) != 5320 {
		t.Fatalf("pool free: %v, %d rows, want 5320", err, len(res.Rows))
	}
	if got := pool.used.Load(); got != 0 {
		t.Errorf("after the query the pool holds %d bytes, want 0", got)
	}
}

// SELECTs of one class share one list of its objects, charged once: 200
// UNIONs of every String take about what one SELECT does.
func TestUnionsShareClassList(t *testing.T) {
	d := loadDump(t, inspectDumps[0])
	strs := d.count(t, `SELECT * FROM java.lang.String`)
	union := `SELECT * FROM java.lang.String` + strings.Repeat(` UNION (SELECT * FROM java.lang.String)`, 200)
	bound := int64(strs)*4 + 64<<10
	res, err := d.run(t, union, Options{Limit: 10, MaxBytes: bound})
	if err != nil || len(res.Rows) != 10 || res.Total != 201*strs {
		t.Errorf("200 UNIONs of %d Strings, 10 rows, under %d bytes: %v, %d rows of %d, want 10 of %d", strs, bound, err, len(res.Rows), res.Total, 201*strs)
	}
}
