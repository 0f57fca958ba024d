package hprofascii

import (
	"bytes"
	"math"
	"strconv"
	"time"
)

// scanner reads one line left to right. The first mismatch clears ok;
// every later call then returns zero values, so a parser can chain calls
// and test ok once at the end.
type scanner struct {
	b  []byte
	ok bool
}

func newScanner(b []byte) scanner { return scanner{b: b, ok: true} }

// lit consumes the literal p.
func (s *scanner) lit(p string) {
	if s.ok && len(s.b) >= len(p) && string(s.b[:len(p)]) == p {
		s.b = s.b[len(p):]
		return
	}
	s.ok = false
}

// has reports whether the rest starts with p, and consumes p if so.
func (s *scanner) has(p string) bool {
	if s.ok && len(s.b) >= len(p) && string(s.b[:len(p)]) == p {
		s.b = s.b[len(p):]
		return true
	}
	return false
}

// end requires that nothing is left.
func (s *scanner) end() {
	if len(s.b) != 0 {
		s.ok = false
	}
}

// blanks skips spaces and tabs.
func (s *scanner) blanks() {
	i := 0
	for i < len(s.b) && (s.b[i] == ' ' || s.b[i] == '\t') {
		i++
	}
	s.b = s.b[i:]
}

// word returns the next run of non-blank bytes, after skipping blanks.
func (s *scanner) word() []byte {
	if !s.ok {
		return nil
	}
	s.blanks()
	i := 0
	for i < len(s.b) && s.b[i] != ' ' && s.b[i] != '\t' {
		i++
	}
	if i == 0 {
		s.ok = false
		return nil
	}
	w := s.b[:i]
	s.b = s.b[i:]
	return w
}

// rest returns what is left, without surrounding blanks; it must not be
// empty.
func (s *scanner) rest() []byte {
	if !s.ok {
		return nil
	}
	s.blanks()
	if len(s.b) == 0 {
		s.ok = false
		return nil
	}
	r := s.b
	s.b = nil
	return r
}

// upToLast returns the bytes before the last occurrence of sep and
// consumes them and sep.
func (s *scanner) upToLast(sep string) []byte { return s.cut(sep, bytes.LastIndex) }

// upTo returns the bytes before the first occurrence of sep and consumes
// them and sep.
func (s *scanner) upTo(sep string) []byte { return s.cut(sep, bytes.Index) }

// cut returns the bytes before the occurrence of sep that index finds,
// and consumes them and sep.
func (s *scanner) cut(sep string, index func(b, sep []byte) int) []byte {
	if !s.ok {
		return nil
	}
	i := index(s.b, []byte(sep))
	if i < 0 {
		s.ok = false
		return nil
	}
	v := s.b[:i]
	s.b = s.b[i+len(sep):]
	return v
}

// u32 reads an unsigned decimal number that fits 32 bits.
func (s *scanner) u32() uint32 {
	if !s.ok {
		return 0
	}
	v, n := decimal(s.b)
	if n == 0 || n > 10 || v > math.MaxUint32 {
		s.ok = false
		return 0
	}
	s.b = s.b[n:]
	return uint32(v)
}

// i64 reads a decimal number with an optional minus sign.
func (s *scanner) i64() int64 {
	if !s.ok {
		return 0
	}
	neg := len(s.b) > 0 && s.b[0] == '-'
	b := s.b
	if neg {
		b = b[1:]
	}
	v, n := decimal(b)
	if n == 0 || n > 19 {
		s.ok = false
		return 0
	}
	s.b = b[n:]
	if neg {
		return -int64(v)
	}
	return int64(v)
}

// total reads a 32-bit total the agents print with %d or %u: negative
// values are wrapped ones.
func (s *scanner) total() uint32 {
	v := s.i64()
	if v < math.MinInt32 || v > math.MaxUint32 {
		s.ok = false
		return 0
	}
	return uint32(v)
}

// hexDigits maps a byte to its value as a hexadecimal digit, 0xff for
// other bytes.
var hexDigits = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range 10 {
		t['0'+i] = byte(i)
	}
	for i := range 6 {
		t['a'+i], t['A'+i] = byte(10+i), byte(10+i)
	}
	return t
}()

// hex reads a lower- or upper-case hexadecimal number of at most 64 bits.
func (s *scanner) hex() uint64 {
	if !s.ok {
		return 0
	}
	var v uint64
	i := 0
	for ; i < len(s.b); i++ {
		d := hexDigits[s.b[i]]
		if d == 0xff {
			break
		}
		v = v<<4 | uint64(d)
	}
	if i == 0 || i > 16 {
		s.ok = false
		return 0
	}
	s.b = s.b[i:]
	return v
}

// percent reads a word such as "7.74%"; a value the C library printed in
// an unusual way (nan, inf) reads as NaN.
func (s *scanner) percent() float64 {
	w := s.word()
	if !s.ok {
		return 0
	}
	if w[len(w)-1] != '%' {
		s.ok = false
		return 0
	}
	return parsePercent(w[:len(w)-1])
}

// decimal reads the leading digits of b: their value (saturated beyond
// 20 digits) and their count.
func decimal(b []byte) (uint64, int) {
	var v uint64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if i < 20 {
			v = v*10 + uint64(b[i]-'0')
		}
	}
	return v, i
}

var pow10 = [...]float64{1, 10, 100, 1000, 10000, 100000, 1000000}

// parsePercent reads "%5.2f" output; other forms go through strconv.
func parsePercent(b []byte) float64 {
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	whole, n := decimal(digits)
	if n > 0 && n <= 15 {
		var frac uint64
		m := 0
		if n < len(digits) && digits[n] == '.' {
			frac, m = decimal(digits[n+1:])
			n += 1 + m
		}
		if n == len(digits) && m < len(pow10) {
			v := float64(whole) + float64(frac)/pow10[m]
			if neg {
				v = -v
			}
			return v
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// ctimeLayout is the layout of C's ctime(), whose day is space-padded.
const ctimeLayout = "Mon Jan _2 15:04:05 2006"

// parseCtime reads a ctime() date, the zero time if it is unreadable.
func parseCtime(b []byte) time.Time {
	t, err := time.Parse(ctimeLayout, string(bytes.TrimSpace(b)))
	if err != nil {
		return time.Time{}
	}
	return t
}

// splitLast splits b at the last sep; ok is false if there is none.
func splitLast(b []byte, sep byte) (before, after []byte, ok bool) {
	i := bytes.LastIndexByte(b, sep)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// quote renders the start of a line for a message.
func quote(b []byte) string {
	const max = 60
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}
