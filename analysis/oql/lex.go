package oql

import (
	"fmt"
	"strconv"
	"strings"
)

// tokKind is what a token is.
type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokNumber
	tokString
	tokAttr // @name
	tokOp   // punctuation and operators
)

type token struct {
	kind tokKind
	text string // identifier, attribute name, operator, number or the string's value
	pos  int    // byte offset in the query
}

// lex splits a query into tokens; an unterminated string or a character
// that starts no token is a syntax error.
func lex(q string) ([]token, error) {
	var out []token
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '$' && strings.HasPrefix(q[i:], "${"):
			// ${name}: MAT's way of naming an outer query's alias.
			end := strings.IndexByte(q[i:], '}')
			if end < 0 {
				return nil, syntaxAt(q, i, "} to end ${", "the end of the query")
			}
			name := q[i+2 : i+end]
			if name == "snapshot" {
				return nil, syntaxAt(q, i, "a query without ${snapshot} (MAT's Java API; docs/oql.md shows the OQL way)", "${snapshot}")
			}
			out = append(out, token{tokIdent, name, i})
			i += end + 1
		case isIdentStart(c):
			j := i + 1
			for j < len(q) && isIdentPart(q[j]) {
				j++
			}
			out = append(out, token{tokIdent, q[i:j], i})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && (isIdentPart(q[j]) || q[j] == '.' || isExponentSign(q, i, j)) {
				j++
			}
			out = append(out, token{tokNumber, q[i:j], i})
			i = j
		case c == '@':
			j := i + 1
			for j < len(q) && isIdentPart(q[j]) {
				j++
			}
			if j == i+1 {
				return nil, syntaxAt(q, i+1, "an attribute name after @", describeAt(q, i+1))
			}
			out = append(out, token{tokAttr, q[i+1 : j], i})
			i = j
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(q) && q[j] != c; j++ {
				if q[j] == '\\' && j+1 < len(q) && q[j+1] == c {
					j++
				}
				b.WriteByte(q[j])
			}
			if j >= len(q) {
				return nil, syntaxAt(q, len(q), fmt.Sprintf("%c to end the string started at column %d", c, column(q, i)), "the end of the query")
			}
			out = append(out, token{tokString, b.String(), i})
			i = j + 1
		default:
			op := ""
			for _, o := range []string{"<=", ">=", "!=", "<>", "=", "<", ">", "(", ")", ",", ".", "*", "+", "-", "/", "%", "[", "]", ":"} {
				if strings.HasPrefix(q[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, syntaxAt(q, i, "a token", describeAt(q, i))
			}
			out = append(out, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(out, token{tokEOF, "", len(q)}), nil
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// isExponentSign reports whether q[j] is the sign of a decimal exponent
// (1E-3) in the number that starts at q[start].
func isExponentSign(q string, start, j int) bool {
	return (q[j] == '-' || q[j] == '+') && (q[j-1] == 'e' || q[j-1] == 'E') &&
		!strings.HasPrefix(q[start:], "0x") && !strings.HasPrefix(q[start:], "0X")
}

// column is the 1-based column of byte offset pos in q, counting
// characters.
func column(q string, pos int) int { return len([]rune(q[:pos])) + 1 }

func syntaxAt(q string, pos int, expected, found string) *SyntaxError {
	return &SyntaxError{Col: column(q, pos), Expected: expected, Found: found}
}

// describeAt names the character at pos for an error.
func describeAt(q string, pos int) string {
	if pos >= len(q) {
		return "the end of the query"
	}
	return strconv.QuoteRune([]rune(q[pos:])[0])
}
