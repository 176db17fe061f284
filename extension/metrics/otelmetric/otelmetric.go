// Package otelmetric adapts the metrics extension to OpenTelemetry metrics:
// Recorder is a metrics.Recorder that records into instruments of an
// OpenTelemetry MeterProvider.
//
//	rec, err := otelmetric.New(meterProvider) // nil: otel.GetMeterProvider()
//	ex, err := executor.New(tools, executor.WithExtensions(metrics.New(metrics.WithRecorder(rec))))
//
// Instruments (meter "github.com/toolbelt-go/toolbelt/extension/metrics"):
//
//	toolbelt.tool.calls            Int64Counter        {tool, status, code}
//	toolbelt.tool.call.duration    Float64Histogram s  {tool, status}, buckets metrics.Buckets
//	toolbelt.tool.calls.in_flight  Int64UpDownCounter  {tool}
//	toolbelt.tool.approvals        Int64Counter        {tool, decision}
//	toolbelt.tool.rate_limited     Int64Counter        {tool}
//
// code is empty on success. tool is a registered tool's name or
// metrics.UnknownTool; status, code and decision are closed sets, a value
// outside them recorded as metrics.Other (see metrics.Observe), so no
// call makes a new attribute set.
package otelmetric

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/toolbelt-go/toolbelt/extension/metrics"
)

// ScopeName is the instrumentation scope (meter name) of the instruments.
const ScopeName = "github.com/toolbelt-go/toolbelt/extension/metrics"

// Attribute keys.
const (
	KeyTool     = attribute.Key("tool")
	KeyStatus   = attribute.Key("status")
	KeyCode     = attribute.Key("code")
	KeyDecision = attribute.Key("decision")
)

// Recorder records tool calls into OpenTelemetry instruments.
type Recorder struct {
	calls       metric.Int64Counter
	duration    metric.Float64Histogram
	inFlight    metric.Int64UpDownCounter
	approvals   metric.Int64Counter
	rateLimited metric.Int64Counter
}

// New creates the instruments on mp's meter. A nil mp means
// otel.GetMeterProvider(). The error names the instrument that could not be
// created.
func New(mp metric.MeterProvider) (*Recorder, error) {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)
	r := &Recorder{}
	var err error
	if r.calls, err = m.Int64Counter("toolbelt.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls by tool, status and error code (empty on success).")); err != nil {
		return nil, fmt.Errorf("otelmetric: create toolbelt.tool.calls: %w", err)
	}
	if r.duration, err = m.Float64Histogram("toolbelt.tool.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of tool calls, from the metrics extension inward."),
		metric.WithExplicitBucketBoundaries(metrics.Buckets...)); err != nil {
		return nil, fmt.Errorf("otelmetric: create toolbelt.tool.call.duration: %w", err)
	}
	if r.inFlight, err = m.Int64UpDownCounter("toolbelt.tool.calls.in_flight", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls running now.")); err != nil {
		return nil, fmt.Errorf("otelmetric: create toolbelt.tool.calls.in_flight: %w", err)
	}
	if r.approvals, err = m.Int64Counter("toolbelt.tool.approvals", metric.WithUnit("{decision}"),
		metric.WithDescription("Approval decisions by tool and decision (approve, deny, modify).")); err != nil {
		return nil, fmt.Errorf("otelmetric: create toolbelt.tool.approvals: %w", err)
	}
	if r.rateLimited, err = m.Int64Counter("toolbelt.tool.rate_limited", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls refused by a rate limit.")); err != nil {
		return nil, fmt.Errorf("otelmetric: create toolbelt.tool.rate_limited: %w", err)
	}
	return r, nil
}

// Start implements metrics.Recorder.
func (r *Recorder) Start(toolName string) {
	r.inFlight.Add(context.Background(), 1, metric.WithAttributes(KeyTool.String(toolName)))
}

// Finish implements metrics.Recorder.
func (r *Recorder) Finish(o metrics.Observation) {
	ctx := context.Background()
	toolAttr := KeyTool.String(o.Tool)
	status := KeyStatus.String(string(o.Status))
	r.inFlight.Add(ctx, -1, metric.WithAttributes(toolAttr))
	r.calls.Add(ctx, 1, metric.WithAttributes(toolAttr, status, KeyCode.String(string(o.Code))))
	r.duration.Record(ctx, o.Duration.Seconds(), metric.WithAttributes(toolAttr, status))
	if o.Approval != "" {
		r.approvals.Add(ctx, 1, metric.WithAttributes(toolAttr, KeyDecision.String(o.Approval)))
	}
	if o.RateLimited {
		r.rateLimited.Add(ctx, 1, metric.WithAttributes(toolAttr))
	}
}

var _ metrics.Recorder = (*Recorder)(nil)
