package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitsNested(t *testing.T) {
	parent := Limits{Timeout: time.Minute, CPUTime: 30 * time.Second, Memory: 1 << 30, Processes: 64, FileSize: 1 << 20, OutputBytes: 1 << 16}
	cases := []struct {
		name  string
		child Limits
		limit string
	}{
		{"timeout", Limits{Timeout: 2 * time.Minute}, LimitTimeout},
		{"cpu", Limits{CPUTime: time.Minute}, LimitCPU},
		{"memory", Limits{Memory: 2 << 30}, LimitMemory},
		{"processes", Limits{Processes: 65}, LimitProcesses},
		{"file size", Limits{FileSize: 1<<20 + 1}, LimitFileSize},
		{"output", Limits{OutputBytes: 1 << 17}, LimitOutput},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.child.Within(parent)
			require.ErrorIs(t, err, ErrExceedsParent)
			require.ErrorIs(t, err, ErrResourceLimit)
			var se *Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.limit, se.Limit)
			assert.Contains(t, err.Error(), tc.limit)
			_, err = tc.child.Resolve(parent)
			require.Error(t, err)
		})
	}

	got, err := Limits{Memory: 1 << 20}.Resolve(parent)
	require.NoError(t, err)
	want := parent
	want.Memory = 1 << 20
	assert.Equal(t, want, got, "unset limits inherit the parent's")

	got, err = Limits{Memory: 8 << 30}.Resolve(Limits{})
	require.NoError(t, err, "an unset parent limit admits anything")
	assert.Equal(t, int64(8<<30), got.Memory)

	err = Limits{Processes: -1}.Within(parent)
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "processes")

	require.NoError(t, DefaultLimits.Validate())
	require.NoError(t, Limits{}.Within(DefaultLimits))
}
