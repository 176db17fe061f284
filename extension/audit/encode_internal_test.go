package audit

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appendRecord must produce exactly json.Marshal's bytes: the hash covers
// them, and records written before it existed were encoded by json.Marshal.
func TestAppendRecordMatchesJSONMarshal(t *testing.T) {
	base := time.Date(2026, 11, 21, 5, 50, 5, 123456789, time.UTC)
	for _, tc := range []struct {
		name string
		rec  Record
	}{
		{"minimal", Record{Seq: 1, Time: base, Kind: KindIntent, Tool: "x", Prev: Genesis}},
		{"empty tool and prev", Record{Time: base}},
		{"whole second", Record{Seq: 2, Time: base.Truncate(time.Second), Kind: KindOutcome, Tool: "x"}},
		{"full", Record{
			Seq: 42, Time: base, Kind: KindOutcome, CallID: "c1", Tool: "deploy", Principal: "alice", Tenant: "acme",
			Roles: []string{"ops", "admin"}, Agent: "bot", Session: "s1", TraceID: "0af7651916cd43dd8448eb211c80319c", Mode: "normal",
			Args: json.RawMessage(`{"env":"prod","pin":"[REDACTED]"}`), Risk: "high", Decision: "approve", Status: "failed",
			ErrorCode: "non_zero_exit", Error: "exit 1", DurationMS: 12.345678, Attempts: 3, Prev: Genesis, Hash: "h",
		}},
		{"escapes in strings", Record{Time: base, Tool: "a\"b\\c\n\r\t\b\f\x00\x1f<>&\u2028\u2029é😀", Error: "bad \xff utf8 \xe2\x80", Agent: "\x7f"}},
		{"pretty args", Record{Time: base, Args: json.RawMessage("{\n  \"q\": \"a b\\\" <x> & \u2028\",\n  \"n\": [1, 2.5e3, true, null] }\n")}},
		{"args with escaped quotes and spaces", Record{Time: base, Args: json.RawMessage(`{"a" : "\\" , "b":"\" x "}`)}},
		{"string args", Record{Time: base, Args: json.RawMessage(`"[REDACTED]"`)}},
		{"tiny duration", Record{Time: base, DurationMS: 0.0000001234}},
		{"huge duration", Record{Time: base, DurationMS: 1.5e22}},
		{"negative duration", Record{Time: base, DurationMS: -3}},
		{"year zero", Record{Time: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.rec)
			require.NoError(t, err)
			got, ok := appendRecord([]byte("prefix"), &tc.rec)
			require.True(t, ok)
			assert.Equal(t, "prefix"+string(want), string(got))
		})
	}
}

func TestAppendRecordDefersToEncodingJSON(t *testing.T) {
	base := time.Date(2026, 11, 21, 5, 50, 5, 0, time.UTC)
	for name, rec := range map[string]Record{
		"invalid args":   {Time: base, Args: json.RawMessage(`{"a":`)},
		"not UTC":        {Time: base.In(time.FixedZone("x", 3600))},
		"year 10000":     {Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"NaN duration":   {Time: base, DurationMS: math.NaN()},
		"+Inf duration":  {Time: base, DurationMS: math.Inf(1)},
		"negative years": {Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(name, func(t *testing.T) {
			out, ok := appendRecord(nil, &rec)
			assert.False(t, ok)
			assert.Empty(t, out)
		})
	}
}

func FuzzAppendRecord(f *testing.F) {
	f.Add("deploy", "a<b>&\u2028", []byte(`{"q": "x y"}`), 1.5, int64(1700000000123456789))
	f.Add("\xff\x00", "", []byte(`[1, "\u2029"]`), 0.0, int64(0))
	f.Fuzz(func(t *testing.T, name, msg string, args []byte, d float64, nanos int64) {
		rec := Record{Seq: 7, Time: time.Unix(0, nanos).UTC(), Kind: KindIntent, Tool: name, Error: msg, Roles: []string{msg, name},
			Args: args, DurationMS: d, Prev: Genesis}
		want, err := json.Marshal(rec)
		got, ok := appendRecord(nil, &rec)
		if !ok {
			return // encoding/json handles it (or reports the error)
		}
		require.NoError(t, err, "appendRecord accepted what json.Marshal refuses")
		require.Equal(t, string(want), string(got))
	})
}
