package policy

import (
	"context"
	"errors"
	"sync"

	"github.com/toolbelt-go/toolbelt/tool"
)

// flight is a call in progress whose tool has mode rules: a mode that
// refuses the tool, or requires approval for it where the call's mode did
// not, entered while the call waits further in (for a person's approval, a
// lock, a slot, a retry) or runs, cancels it.
type flight struct {
	specs  []*tool.Spec // the called tool's, then those of the tools it runs (runsAlso)
	mode   string       // the mode the call is judged in
	cancel context.CancelCauseFunc
}

// flights are the calls in progress of tools with mode rules.
type flights struct {
	mu    sync.Mutex
	calls map[*flight]struct{}
}

// modeChanged is the cause a call is cancelled with when the mode changes
// to one that refuses its tool.
type modeChanged struct {
	rule string
	mode string
	err  error // the *tool.Error Wrap would have refused the call with
}

func (m *modeChanged) Error() string { return m.err.Error() }

// modeBound reports whether a mode can refuse the tool or require approval
// for it: it has forbidden_in_modes, allowed_in_modes or
// requires_approval_in_modes, or its spec names AllowedModes.
func (p *Policy) modeBound(spec *tool.Spec) bool {
	if len(spec.AllowedModes) > 0 {
		return true
	}
	tr := p.cfg.Load().tools[spec.Name]
	return tr != nil && len(tr.forbidden)+len(tr.allowed)+len(tr.approval) > 0
}

// track registers a call of the tool of specs (and of the tools it runs)
// and reads the mode it is judged in (flight.mode) under the same lock as
// revoke, so that revoke sees either that mode or none of the call; the
// context returned is cancelled, with a *modeChanged cause, when the mode
// becomes one that refuses one of them, or requires approval the call's
// mode did not. untrack must follow.
func (p *Policy) track(ctx context.Context, specs []*tool.Spec) (context.Context, *flight) {
	ctx, cancel := context.WithCancelCause(ctx)
	f := &flight{specs: specs, cancel: cancel}
	p.flying.mu.Lock()
	if p.flying.calls == nil {
		p.flying.calls = map[*flight]struct{}{}
	}
	p.flying.calls[f] = struct{}{}
	f.mode = p.Mode()
	p.flying.mu.Unlock()
	return ctx, f
}

func (p *Policy) untrack(f *flight) {
	p.flying.mu.Lock()
	delete(p.flying.calls, f)
	p.flying.mu.Unlock()
	f.cancel(nil)
}

// revoke cancels the calls in progress that mode refuses, and those it
// requires approval for that were judged in a mode that did not (nobody
// was asked). The mode is stored before revoke runs, and a call reads its
// mode as it is tracked, so every call either is judged in the new mode
// or is cancelled.
func (p *Policy) revoke(mode string) {
	cfg := p.cfg.Load()
	p.flying.mu.Lock()
	defer p.flying.mu.Unlock()
	for f := range p.flying.calls {
		if rule, err := p.flightDenial(cfg, f, mode); err != nil {
			f.cancel(&modeChanged{rule: rule, mode: mode, err: err})
		}
	}
}

// flightDenial is the refusal, in mode, of the call in progress f.
func (p *Policy) flightDenial(cfg *config, f *flight, mode string) (string, error) {
	for _, s := range f.specs {
		if rule, err := p.modeDenial(cfg, cfg.tools[s.Name], mode, s); err != nil {
			return rule, err
		}
	}
	// The first rule of the call's tools that requires approval in m.
	asking := func(m string) *toolRule {
		for _, s := range f.specs {
			if tr := cfg.tools[s.Name]; tr != nil && tr.approval.has(m) {
				return tr
			}
		}
		return nil
	}
	if tr := asking(mode); tr != nil && asking(f.mode) == nil {
		return p.denial(cfg, tr.name+".requires_approval_in_modes", 0, "tool %q requires approval in mode %s, and this call began without it in mode %s: call it again to ask for approval", tr.tool, mode, f.mode)
	}
	return "", nil
}

// revoked gives a call that failed after revoke cancelled it the policy's
// refusal, naming the rule and the new mode, in place of the cancellation
// it failed with. A call that finished anyway keeps its result.
func revoked(ctx context.Context, res *tool.Result) {
	if res == nil || res.Error == nil || ctx.Err() == nil {
		return
	}
	var mc *modeChanged
	if !errors.As(context.Cause(ctx), &mc) {
		return
	}
	te := tool.AsError(mc.err)
	res.Error = &tool.Error{Code: te.Code, Message: te.Message + "; the mode changed while the call was in progress, and it was stopped"}
	res.SetMeta(MetaRule, mc.rule)
	res.SetMeta(MetaMode, mc.mode)
}
