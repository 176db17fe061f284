// Package mcptool turns the tools of an external MCP server into
// tool.Tools, so they go through the executor and its extensions (auth,
// policy, approval, audit, retry, ...) like any other tool.
//
//	c, err := mcptool.Connect(ctx, mcptool.Stdio("my-server", "--flag"), mcptool.WithPrefix("my_"))
//	if err != nil { ... }
//	defer c.Close()
//	tools, err := c.Tools(ctx) // every page of tools/list
//	reg.MustRegister(tools...)
//
// Targets: Stdio (a subprocess in its own process group), HTTP (streamable
// HTTP), Transport (any SDK transport, e.g. in-memory for tests).
//
// Results are mapped faithfully: text, image, audio, resource links and
// embedded resources become tool.Content blocks; structuredContent becomes
// Result.Output, and because each tool's Spec.OutputSchema is the server's
// outputSchema, the executor validates it (the SDK client does not): output
// that breaks it fails with tool.CodeInvalidOutput, and so does a success
// without structuredContent from a tool that declares an output schema
// (MCP requires it; its text would pass for what the schema promised,
// unchecked). An isError result is a
// failed result; "unknown tool" and "invalid arguments" are recognised both
// as JSON-RPC errors and as isError text and map to tool.CodeNotFound and
// tool.CodeInvalidArguments. A toolbelt server (executor/mcpserver) sends
// its exact *tool.Error under _meta[MetaError], which is used as is.
//
// Risk: a listed tool's annotations are the server's hints, untrusted by
// default (MCP asks clients to treat them so), and a claim can only raise
// a tool's risk, never lower it: every tool of an untrusted server is what
// it would be had the server said nothing, destructive (the MCP default),
// tool.RiskHigh, assessed dangerous. A read-only, not-destructive or
// closed-world claim is not taken: it would make the tool medium, assessed
// warning, which a policy approving warnings (approval.ApproveWarnings)
// runs unasked. Untrusted read-only and idempotent hints would also make
// the tool cacheable (extension/cache), retried (extension/retry) and
// re-run by a job store. WithTrustedAnnotations takes the hints (read-only:
// tool.RiskLow; destructive: tool.RiskHigh; otherwise tool.RiskMedium);
// WithSpec sets any risk.
//
// Progress: every call carries a progress token. Notifications that arrive
// while the call runs are emitted on its context as output events on the
// "progress" stream (tool.EmitOutput), with a ProgressData JSON payload.
// Notifications can arrive after the result (the SDK dispatches them apart
// from responses); those, and any with a token this client did not send,
// go to the OnLateProgress handler instead.
//
// Cancellation: cancelling a call's context makes the SDK send
// notifications/cancelled, which cancels the handler on the server.
//
// Failure: when the server dies or the connection breaks, the call fails
// with tool.CodeUnavailable (retryable) and the next call dials the target
// again (a new subprocess for Stdio). A server that does not answer that
// dial holds each waiting call until its own deadline, and Close ends the
// dial. A message larger than 16 MiB (a
// stdio line, an event, an HTTP JSON or error body) breaks the connection
// the same way. A message of more than 262,144 JSON objects and arrays,
// or of more than 524,288 values (commas and colons, a member of an
// object counting 2), which the SDK would decode as any (some 300 bytes
// an array, 110 to 170 a number or string), is not handed
// to it: over HTTP its body or stream fails likewise; over stdio and
// other message-level transports an answer that large becomes an error
// answer, and a request or notification that large is dropped. Over HTTP, the client answers each of the server's own
// requests (ping, roots/list, sampling, elicitation) with a POST: at most
// 16 such answers are in flight at once (more are not sent), and closing
// the connection ends those the server has not taken, so a server that
// floods pings and takes no answer holds neither connections nor Close.
// Over stdio and other message-level transports the answers wait in one
// queue that one goroutine writes, at most 1 MiB of them, and closing the
// connection ends it. The WithSampling and WithElicitation functions
// answer at most 16 requests at once (more get an error), and Close ends
// the context of those they answer.
//
// Tools the client cannot offer are left out of Tools and reported by
// Client.Skipped: a tool whose execution.taskSupport is "required" (it runs
// only as an MCP task, which this client does not implement) and a tool
// whose name or schemas the registry would refuse, whose schema is over
// the size and depth bounds, or whose name becomes one already taken.
//
// Spec files: Kind(pool) is the factory for tools of kind "mcp" (see Impl).
package mcptool
