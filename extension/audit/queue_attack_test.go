package audit_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// Every record WithSyncInterval accepts must encode later: a record the
// syncer cannot encode would stop the trail for good and lose the records
// queued with it, after their Writes returned nil. Each of these records
// is refused by a per-record Write too (JSON cannot hold it), so with an
// interval Write must refuse it at once, and the trail must go on.
func TestSyncIntervalRefusesUnencodableRecords(t *testing.T) {
	west := time.FixedZone("UTC-5", -5*3600)
	east := time.FixedZone("UTC+5", 5*3600)
	bad := map[string]audit.Record{
		"NaN duration":      {Tool: "x", DurationMS: math.NaN()},
		"infinite duration": {Tool: "x", DurationMS: math.Inf(1)},
		"year 10000 in UTC": {Tool: "x", Time: time.Date(9999, 12, 31, 23, 0, 0, 0, west)},
		"year -1 in UTC":    {Tool: "x", Time: time.Date(0, 1, 1, 1, 0, 0, 0, east)},
	}
	for name, rec := range bad {
		t.Run(name, func(t *testing.T) {
			per := mustNew(t, &failingWriter{budget: 1 << 20})
			require.Error(t, per.Write(rec), "a per-record Write refuses it")
			require.NoError(t, per.Close())

			w := &failingWriter{budget: 1 << 20}
			tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
			require.NoError(t, tr.Write(audit.Record{Tool: "before"}))
			assert.Error(t, tr.Write(rec), "Write accepted a record the syncer cannot encode")
			require.NoError(t, tr.Write(audit.Record{Tool: "after"}))
			require.NoError(t, tr.Close())
			rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
			require.NoError(t, err)
			assert.Equal(t, 2, rep.Records, "the records around the bad one are kept")
		})
	}
}
