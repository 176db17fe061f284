package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// PriorityBudget places the budget after auth and policy (a call they deny
// never spends budget) and before rate limiting and approval.
const PriorityBudget = extension.PriorityPolicy + 50

// Budget is an extension that gives each tenant a budget of cost units and
// denies calls, with tool.CodePolicyDenied, once a tenant has spent it.
//
// The tenant is the call's Principal.Tenant (the executor fills the
// principal from tool.WithPrincipal(ctx, ...) when the call has none). A
// call reserves its cost before it runs, under a mutex, so concurrent calls
// can never overspend; a call that is then denied further in (rate limit,
// approval) gets its units back, since it never ran.
type Budget struct {
	mu     sync.Mutex
	limits map[string]int
	def    int
	cost   func(spec *tool.Spec) int
	spent  map[string]int
}

// BudgetOption configures a Budget.
type BudgetOption func(*Budget)

// WithTenantLimit gives one tenant its own limit instead of the default.
func WithTenantLimit(tenant string, units int) BudgetOption {
	return func(b *Budget) { b.limits[tenant] = units }
}

// WithCost prices each tool; the default is 1 unit per call.
func WithCost(cost func(spec *tool.Spec) int) BudgetOption {
	return func(b *Budget) { b.cost = cost }
}

// NewBudget returns a Budget that grants every tenant defaultUnits, unless
// WithTenantLimit says otherwise.
func NewBudget(defaultUnits int, opts ...BudgetOption) *Budget {
	b := &Budget{limits: map[string]int{}, def: defaultUnits, spent: map[string]int{}}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Name implements extension.Extension.
func (b *Budget) Name() string { return "budget" }

// Check implements extension.Checker: executor.New refuses a budget that
// could never be right, before any call.
func (b *Budget) Check() error {
	var errs []error
	if b.def < 0 {
		errs = append(errs, fmt.Errorf("budget: the default is %d units: give every tenant 0 or more", b.def))
	}
	for _, tenant := range slices.Sorted(maps.Keys(b.limits)) {
		if l := b.limits[tenant]; l < 0 {
			errs = append(errs, fmt.Errorf("budget: WithTenantLimit(%q, %d): give the tenant 0 or more units", tenant, l))
		}
	}
	return errors.Join(errs...)
}

// Priority implements extension.Extension.
func (b *Budget) Priority() int { return PriorityBudget }

// Spent reports how many units tenant has spent and its limit.
func (b *Budget) Spent(tenant string) (spent, limit int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent[tenant], b.limit(tenant)
}

func (b *Budget) limit(tenant string) int {
	if l, ok := b.limits[tenant]; ok {
		return l
	}
	return b.def
}

// Wrap implements extension.Extension: reserve, run, refund if the call
// was denied before it ran.
func (b *Budget) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		tenant := req.Call.Principal.Tenant
		if tenant == "" {
			// The model reads the message, so it says what the model can
			// do; the developer's fix goes in the cause (Err), which logs
			// show and no model is sent.
			return tool.Failure(&req.Call, &tool.Error{Code: tool.CodePolicyDenied,
				Message: fmt.Sprintf("tool %q is billed to an organisation, and this conversation has none; do not retry: tell the user", req.Call.Name),
				Err:     errors.New("budget: the call has no tenant: set Principal.Tenant, e.g. with tool.WithPrincipal(ctx, tool.Principal{ID: ..., Tenant: ...})")})
		}
		cost := 1
		if b.cost != nil {
			cost = b.cost(req.Spec)
		}

		b.mu.Lock()
		spent, limit := b.spent[tenant], b.limit(tenant)
		if spent+cost > limit {
			b.mu.Unlock()
			return tool.Fail(&req.Call, tool.CodePolicyDenied, fmt.Sprintf(
				"budget: tenant %q has spent %d of %d units and %s costs %d; do not retry: tell the user, who can ask an administrator to raise the budget",
				tenant, spent, limit, req.Call.Name, cost))
		}
		b.spent[tenant] = spent + cost
		b.mu.Unlock()

		res := next(ctx, req)
		if res.Status == tool.StatusDenied {
			b.mu.Lock()
			b.spent[tenant] -= cost
			b.mu.Unlock()
			return res
		}
		after, _ := b.Spent(tenant)
		res.SetMeta("budget", map[string]any{"tenant": tenant, "cost": cost, "spent": after, "limit": limit})
		return res
	}
}
