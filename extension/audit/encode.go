package audit

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendRecord appends rec's JSON to dst, byte for byte what json.Marshal
// produces for it (same field order, omissions and escaping, HTML-safe), but
// without reflection: the audit extension encodes two records per call. It
// reports false, leaving the caller to use encoding/json, for the values
// it does not handle the same way: a Time that is not UTC or outside years
// 0-9999, a DurationMS that is NaN or infinite, and Args that are not valid
// JSON (json.Marshal's error then names the problem).
func appendRecord(dst []byte, rec *Record) ([]byte, bool) {
	if !encodable(rec) {
		return dst, false
	}
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendUint(dst, rec.Seq, 10)
	dst = append(dst, `,"time":"`...)
	dst = rec.Time.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","kind":`...)
	dst = appendString(dst, rec.Kind)
	dst = appendField(dst, `,"call_id":`, rec.CallID, true)
	dst = appendField(dst, `,"tool":`, rec.Tool, false)
	dst = appendField(dst, `,"principal":`, rec.Principal, true)
	dst = appendField(dst, `,"tenant":`, rec.Tenant, true)
	if len(rec.Roles) > 0 {
		dst = append(dst, `,"roles":[`...)
		for i, r := range rec.Roles {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, r)
		}
		dst = append(dst, ']')
	}
	dst = appendField(dst, `,"agent":`, rec.Agent, true)
	dst = appendField(dst, `,"session":`, rec.Session, true)
	dst = appendField(dst, `,"trace_id":`, rec.TraceID, true)
	dst = appendField(dst, `,"mode":`, rec.Mode, true)
	if len(rec.Args) > 0 {
		dst = append(dst, `,"args":`...)
		dst = appendCompact(dst, rec.Args)
	}
	dst = appendField(dst, `,"risk":`, rec.Risk, true)
	dst = appendField(dst, `,"decision":`, rec.Decision, true)
	dst = appendField(dst, `,"decided_by":`, rec.DecidedBy, true)
	dst = appendField(dst, `,"status":`, rec.Status, true)
	dst = appendField(dst, `,"error_code":`, rec.ErrorCode, true)
	dst = appendField(dst, `,"error":`, rec.Error, true)
	if rec.DurationMS != 0 {
		dst = append(dst, `,"duration_ms":`...)
		dst = appendFloat(dst, rec.DurationMS)
	}
	if rec.Attempts != 0 {
		dst = append(dst, `,"attempts":`...)
		dst = strconv.AppendInt(dst, int64(rec.Attempts), 10)
	}
	dst = appendField(dst, `,"prev":`, rec.Prev, false)
	dst = appendField(dst, `,"hash":`, rec.Hash, true)
	return append(dst, '}'), true
}

// encodable says whether appendRecord encodes rec itself.
func encodable(rec *Record) bool {
	return rec.Time.Location() == time.UTC && rec.Time.Year() >= 0 && rec.Time.Year() <= 9999 &&
		!math.IsNaN(rec.DurationMS) && !math.IsInf(rec.DurationMS, 0) &&
		(len(rec.Args) == 0 || rec.argsValid || rec.redactLater || json.Valid(rec.Args))
}

func appendField(dst []byte, key, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return dst
	}
	dst = append(dst, key...)
	return appendString(dst, v)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json does with
// HTML escaping on: ", \ and control characters escaped, <, > and & as
// \u003c, \u003e, \u0026, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendCompact appends valid JSON src without insignificant whitespace,
// with <, >, & and U+2028/U+2029 escaped: what json.Marshal does to a
// json.RawMessage.
func appendCompact(dst, src []byte) []byte {
	start := 0
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
			i += 2
			start = i + 1
			continue
		}
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte is ASCII in valid JSON
			case '"':
				inString = false
			case '<', '>', '&':
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				start = i + 1
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}

// appendFloat formats f as encoding/json does (ES6 number formatting).
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
