// Command custom-extension writes an extension from scratch: a per-tenant
// budget of cost units, checked before every call and spent atomically, so
// a tenant that has used its budget is denied (tool.CodePolicyDenied) while
// other tenants carry on. The tenant comes from the principal the caller
// puts in the context with tool.WithPrincipal.
//
//	go run ./examples/custom-extension
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// SearchArgs is the input of search.
type SearchArgs struct {
	Query string `json:"query"`
}

// ReportArgs is the input of report.
type ReportArgs struct {
	Topic string `json:"topic"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-extension:", err)
		os.Exit(1)
	}
}

func newRegistry() (*registry.Registry, error) {
	reg := registry.New()
	err := reg.Register(
		tool.Func("search", "Search the knowledge base", func(_ context.Context, in SearchArgs) (string, error) {
			return "3 hits for " + in.Query, nil
		}, tool.ReadOnly()),
		tool.Func("report", "Write a long report (expensive)", func(_ context.Context, in ReportArgs) (string, error) {
			return "report on " + in.Topic, nil
		}, tool.WithTags("expensive")),
	)
	return reg, err
}

// cost prices the tools: expensive ones cost 5 units, the rest 1.
func cost(spec *tool.Spec) int {
	if spec.HasTag("expensive") {
		return 5
	}
	return 1
}

func run(ctx context.Context, w io.Writer) error {
	reg, err := newRegistry()
	if err != nil {
		return err
	}
	budget := NewBudget(10, WithTenantLimit("globex", 6), WithCost(cost))
	ex, err := executor.New(reg, executor.WithExtensions(budget))
	if err != nil {
		return err
	}

	type step struct {
		tenant, user, tool, args string
	}
	steps := []step{
		{"acme", "alice", "search", `{"query":"invoices"}`},
		{"globex", "gina", "search", `{"query":"contracts"}`},
		{"acme", "alice", "report", `{"topic":"Q3 revenue"}`},
		{"globex", "gina", "report", `{"topic":"churn"}`},
		{"globex", "gina", "search", `{"query":"churn by region"}`}, // 1+5+1 > 6: denied
		{"acme", "bob", "search", `{"query":"refunds"}`},            // acme has room: 7 of 10
	}
	for i, s := range steps {
		// The caller says who is asking; the executor copies the context's
		// principal into the call.
		pctx := tool.WithPrincipal(ctx, tool.Principal{ID: s.user, Tenant: s.tenant})
		res, _ := ex.Execute(pctx, tool.Call{ID: fmt.Sprintf("c%d", i+1), Name: s.tool, Args: json.RawMessage(s.args)})
		fmt.Fprintf(w, "%-6s %-5s %-6s -> %s", s.tenant, s.user, s.tool, res.Status)
		if res.Error != nil {
			fmt.Fprintf(w, " [%s] %s\n", res.Error.Code, res.Error.Message)
			continue
		}
		fmt.Fprintf(w, " %q budget=%v\n", res.Text(), res.Metadata["budget"])
	}
	for _, t := range []string{"acme", "globex"} {
		spent, limit := budget.Spent(t)
		fmt.Fprintf(w, "tenant %s: spent %d of %d units\n", t, spent, limit)
	}
	return nil
}
