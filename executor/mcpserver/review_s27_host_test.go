package mcpserver

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A server in a container whose port is forwarded to the host's localhost
// (docker run -p 8080:8080) sees a request for localhost:8080 come to its
// own address, not loopback. A loopback name is no rebound page's (only
// the user's own machine serves pages from one), so it is served there,
// with WithAllowedHosts or without; a rebound name is still refused.
func TestLoopbackNameServedOnAForwardedAddress(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("count", "Count a call", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()))
	for _, opts := range [][]Option{nil, {WithAllowedHosts("tools.lan")}} {
		s, err := New(executor.MustNew(reg), opts...)
		require.NoError(t, err)
		url, port := lanServer(t, s.HTTPHandler())
		assert.NoError(t, connectAs(t, url, "localhost:"+port, nil), "localhost reaching a forwarded port is served")
		assert.NoError(t, connectAs(t, url, "127.0.0.1:"+port, nil), "127.0.0.1 reaching a forwarded port is served")
		assert.Error(t, connectAs(t, url, "rebound.example:"+port, nil), "a rebound name is refused")
	}
}
