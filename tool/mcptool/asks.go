package mcptool

import (
	"context"
	"fmt"
)

// maxAsksInFlight bounds the server's sampling and elicitation requests
// that the host's functions (WithSampling, WithElicitation) answer at once
// for one client. The SDK runs each request on a goroutine of its own as
// it arrives (and fulfils all the input requests of a 2026-07-28 result at
// once), so a server that sent a hundred sampling requests had the host's
// model called a hundred times in parallel, at the host's cost. A server
// asks a few things at once; a request past the bound is answered with an
// error, without calling the function.
const maxAsksInFlight = 16

// errTooManyAsks refuses a request past maxAsksInFlight.
var errTooManyAsks = fmt.Errorf("mcptool: this client answers at most %d sampling and elicitation requests of the MCP server at once: ask again once one is answered", maxAsksInFlight)

// asks holds the places of the server's sampling and elicitation
// requests being answered, and ends them when the client is closed.
type asks struct {
	places chan struct{}
	stop   context.Context // done when the client is closed
}

// answerer returns fn bounded by a: a request past maxAsksInFlight is
// refused, and one running when the client is closed has its context
// ended (closing the session waits for every request being answered, so
// a function waiting for a model or a user held Close for as long).
func answerer[Req, Res any](a *asks, fn func(context.Context, Req) (Res, error)) func(context.Context, Req) (Res, error) {
	if fn == nil {
		return nil
	}
	return func(ctx context.Context, req Req) (Res, error) {
		select {
		case a.places <- struct{}{}:
		default:
			var none Res
			return none, errTooManyAsks
		}
		defer func() { <-a.places }()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(a.stop, cancel)()
		return fn(ctx, req)
	}
}
