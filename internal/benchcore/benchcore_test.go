package benchcore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/benchcore"
)

func TestBaselineRuns(t *testing.T) {
	run, err := benchcore.NewBaseline()
	require.NoError(t, err)
	require.NoError(t, run(context.Background()))
}
