// Package mcpserver serves the tools of a registry, through an executor, as
// an MCP server (the official Go SDK), over stdio and streamable HTTP.
//
//	srv, err := mcpserver.New(ex, mcpserver.WithImplementation("my-tools", "v1"))
//	if err != nil { ... }
//	err = srv.ServeStdio(ctx)                      // a stdio server, or
//	http.Handle("/mcp", srv.HTTPHandler())         // stateless streamable HTTP
//
// Each tool is added with Server.AddTool and the raw schemas of
// registry.Export(registry.MCP): the SDK infers and validates nothing, and
// every call runs the full pipeline (ex.Execute: argument validation,
// extensions, backend, output validation).
//
// What a client sees:
//   - an unknown tool, or one the executor's auth extension refuses the
//     principal (tools/list hides it): a JSON-RPC invalid-params error,
//     the same for both;
//   - a failure of any kind (backend error, policy or approval denial,
//     invalid arguments, invalid output, timeout): an isError result whose
//     text is "code: message" (see ErrorText), with the *tool.Error under
//     _meta[MetaError];
//   - success: the content blocks, and structured output as
//     structuredContent and as a JSON text block;
//   - output events of the call (a shell tool's stdout, an MCP backend's
//     progress) as progress notifications, when the request carried a
//     progress token. The server installs the emitter (tool.WithEmitter) on
//     the call's context itself.
//
// Cancelling the request (notifications/cancelled, or the HTTP request
// going away) cancels the call's context, and with it the backend.
//
// Principals: WithPrincipal maps a request (session, HTTP header, token
// info) to the tool.Principal the call acts for; the default is anonymous.
// tools/list lists a principal only the tools the executor's auth
// extension (extension/auth's Authorize) lets it call.
//
// Approval through the client: Approver is an approval.Approver that asks
// the human at the client with MCP elicitation, when the client supports it.
// A client asked while the call waits has WithElicitTimeout to answer.
//
// Stateful HTTP sessions left idle are closed after 30 minutes
// (SessionTimeout).
//
// Bounds per principal (all anonymous clients are one): at most
// WithMaxSessions stateful sessions open (default 1000), and at most
// WithMaxCallsInProgress calls in progress over every session and
// transport (default DefaultMaxCallsInProgress, 64). The SDK runs each
// request on a goroutine of its own as it arrives, so without the second
// bound one client starting calls of a slow tool holds as many as it sends;
// a call over it is answered at once with a retryable concurrency_limit
// error. Other requests but ping and initialize count against the same
// bound (the SDK parks a subscriptions/listen until the client cancels it).
// Over HTTP, a JSON-RPC batch (revision 2025-03-26) of more than 16
// messages is refused whole: the bound counts a request until its handler
// returns, and each answer of a batch waits on its own goroutine until the
// client reads it.
//
// DNS rebinding: over HTTP, a request whose Host header names neither the
// address it came to nor a host of WithAllowedHosts is refused with 403
// when it came to an address other than loopback without a verified
// bearer token (the SDK checks loopback addresses itself), and always
// when WithAllowedHosts is given: a web page whose DNS name was pointed at
// the server's address cannot call its tools from a user's browser.
//
// Cross-origin pages: over HTTP, a request a browser marks as sent by a
// page of another origin (Sec-Fetch-Site, or an Origin header whose host
// is not the Host header: net/http.CrossOriginProtection's rule, applied
// to every method but OPTIONS) is refused with 403 unless its origin is
// listed with WithAllowedOrigins or a verified bearer token authenticates
// it. Requests without Origin (clients that are no browser) are served.
package mcpserver
