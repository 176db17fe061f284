// Package toolbelt is a Go SDK for running the tools of LLM agents.
//
// Define a tool once — a Go function with typed structs, a shell command, an
// HTTP endpoint, or the tools of any MCP server — hand its schema to any
// model provider, and run the calls that come back through one executor:
// validated against the schema, authorised, checked against governance
// policy, rate-limited, approved by a human or a policy where needed,
// sandboxed, logged, measured and audited.
//
// # Map of the SDK
//
// The vocabulary and the backends:
//
//   - tool: Spec, Call, Result, Error (a closed set of codes), Risk, the Tool
//     interface, and tool.Func, which turns func(ctx, In) (Out, error) into a
//     tool with schemas reflected from In and Out.
//   - tool/shell: commands from argv templates, run in a sandbox and
//     classified by approval/classify.
//   - tool/httptool: REST endpoints from URL templates, with an outbound guard.
//   - tool/mcptool: the tools of an external MCP server.
//   - tool/builtin: a ready catalog (files in a workspace, git, system
//     metrics, processes, tests).
//
// Holding, exporting and running tools:
//
//   - registry: registers tools (schemas compiled once), filters them, and
//     exports them for OpenAI (chat and responses, strict), Anthropic, Gemini
//     and MCP; loads tool specs from YAML and JSON files.
//   - executor: the pipeline — look up, validate, extension chain, backend
//     under a deadline, output validation — plus batches with conflict locks,
//     concurrency limits, async jobs, events and history.
//   - executor/mcpserver: serves a registry through an executor as an MCP
//     server.
//
// Governing what runs:
//
//   - extension: the middleware contract; extension/auth, policy, ratelimit,
//     logging, metrics, tracing, audit, retry, cache and approvalgate (human
//     approval) are the built-ins, ordered by priority.
//   - approval: approvers (terminal, queue, function, chain) and policies;
//     approval/classify judges shell commands with a real shell parser.
//   - sandbox: resource limits and engines (process, Landlock, bubblewrap,
//     gVisor), and a Workspace confined with os.Root.
//   - agent: a tool-calling loop over any model client, with wire formats
//     for every provider (agent/wire).
//   - dashboard: a web page to watch live calls, decide pending approvals and
//     read the history.
//
// Nested modules, each fetched on its own (go get
// github.com/toolbelt-go/toolbelt/providers/openai):
//
//   - providers/openai, providers/anthropic, providers/gemini: agent.Model
//     over each provider's official Go SDK (OpenAI's also for local
//     OpenAI-compatible servers).
//   - backend/postgres: rate-limit, approval, job and history stores and an
//     audit sink shared by a fleet through PostgreSQL.
//
// A first program:
//
//	reg := registry.New()
//	reg.MustRegister(tool.Func("search", "Search the knowledge base", search))
//	defs, _ := reg.Export(registry.OpenAIChat) // send defs as the request's "tools"
//	ex := executor.MustNew(reg)
//	res, err := ex.Execute(ctx, tool.Call{ID: "c1", Name: "search", Args: args})
//
// See examples/quickstart for the whole job in one page.
package toolbelt
