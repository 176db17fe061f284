package schema

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// isDuration is the "duration" format (RFC 3339, appendix A) as
// jsonschema v5 reads it, in time linear in the text: the validator's own
// check joined the unit letters into a string a letter at a time, so
// "P1Y1Y1Y..." cost the square of its length (128 KiB: 0.75 s).
func isDuration(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	if s == "" || s[0] != 'P' {
		return false
	}
	date, s, ok := durationUnits(s[1:])
	switch {
	case !ok:
		return false
	case date == "W":
		return s == ""
	case date != "" && !strings.Contains("YMD", date):
		return false
	case date != "" && s == "":
		return true
	case s == "" || s[0] != 'T':
		return false
	}
	clock, s, ok := durationUnits(s[1:])
	return ok && s == "" && clock != "" && strings.Contains("HMS", clock)
}

// durationUnits reads digits-and-letter pairs up to a "T" or the end of
// s. It returns their letters (only the first four: a longer run is no
// part's units, and keeping them all cost the square of the text), the
// rest of s, and false when a letter has no digits before it or digits
// end s.
func durationUnits(s string) (units, rest string, ok bool) {
	for s != "" && s[0] != 'T' {
		i := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) {
			return units, s[i:], false
		}
		if len(units) < 4 {
			units += s[i : i+1]
		}
		s = s[i+1:]
	}
	return units, s, true
}

// isDateTime is the validator's "date-time" format.
var isDateTime = jsonschema.Formats["date-time"]

// isPeriod is the "period" format (RFC 3339, appendix A: a start and an
// end, or a start and a duration, or a duration and an end) as jsonschema
// v5 reads it, with isDuration's linear reading of a duration.
func isPeriod(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	start, end, ok := strings.Cut(s, "/")
	if !ok {
		return false
	}
	if isDateTime(start) {
		return isDateTime(end) || isDuration(end)
	}
	return isDuration(start) && isDateTime(end)
}
