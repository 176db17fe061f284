// Package promcollector adapts the metrics extension to Prometheus: Collector
// is a metrics.Recorder and a prometheus.Collector that a program registers
// on its own registry.
//
//	col := promcollector.New()
//	reg.MustRegister(col) // a *prometheus.Registry (client_golang)
//	ex, err := executor.New(tools, executor.WithExtensions(metrics.New(metrics.WithRecorder(col))))
//
// Metrics (namespace "toolbelt" by default):
//
//	toolbelt_tool_calls_total{tool,status,code}        counter
//	toolbelt_tool_call_duration_seconds{tool,status}   histogram (metrics.Buckets)
//	toolbelt_tool_calls_in_flight{tool}                gauge
//	toolbelt_tool_approvals_total{tool,decision}       counter
//	toolbelt_tool_rate_limited_total{tool}             counter
//
// code is empty on success. tool is a registered tool's name or
// metrics.UnknownTool; status, code and decision are closed sets, a value
// outside them counted as metrics.Other (see metrics.Observe), so no call
// makes a new series.
package promcollector

import (
	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/toolbelt-go/toolbelt/extension/metrics"
)

// Collector records tool calls into Prometheus metrics.
type Collector struct {
	calls       *prom.CounterVec
	duration    *prom.HistogramVec
	inFlight    *prom.GaugeVec
	approvals   *prom.CounterVec
	rateLimited *prom.CounterVec
}

type config struct {
	namespace   string
	buckets     []float64
	constLabels prom.Labels
}

// Option configures a Collector.
type Option func(*config)

// WithNamespace sets the metric name prefix (default "toolbelt").
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithBuckets replaces the latency buckets (seconds; default metrics.Buckets).
func WithBuckets(b ...float64) Option {
	return func(c *config) {
		if len(b) > 0 {
			c.buckets = append([]float64(nil), b...)
		}
	}
}

// WithConstLabels adds labels with fixed values to every metric (for
// example the service name).
func WithConstLabels(l prom.Labels) Option { return func(c *config) { c.constLabels = l } }

// New returns a Collector. Register it on a prometheus.Registerer and pass
// it to metrics.WithRecorder.
func New(opts ...Option) *Collector {
	cfg := config{namespace: "toolbelt", buckets: append([]float64(nil), metrics.Buckets...)}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return &Collector{
		calls: prom.NewCounterVec(prom.CounterOpts{
			Namespace: cfg.namespace, Subsystem: "tool", Name: "calls_total",
			Help: "Tool calls by tool, status and error code (empty on success).", ConstLabels: cfg.constLabels,
		}, []string{"tool", "status", "code"}),
		duration: prom.NewHistogramVec(prom.HistogramOpts{
			Namespace: cfg.namespace, Subsystem: "tool", Name: "call_duration_seconds",
			Help: "Duration of tool calls, from the metrics extension inward.", Buckets: cfg.buckets, ConstLabels: cfg.constLabels,
		}, []string{"tool", "status"}),
		inFlight: prom.NewGaugeVec(prom.GaugeOpts{
			Namespace: cfg.namespace, Subsystem: "tool", Name: "calls_in_flight",
			Help: "Tool calls running now.", ConstLabels: cfg.constLabels,
		}, []string{"tool"}),
		approvals: prom.NewCounterVec(prom.CounterOpts{
			Namespace: cfg.namespace, Subsystem: "tool", Name: "approvals_total",
			Help: "Approval decisions by tool and decision (approve, deny, modify).", ConstLabels: cfg.constLabels,
		}, []string{"tool", "decision"}),
		rateLimited: prom.NewCounterVec(prom.CounterOpts{
			Namespace: cfg.namespace, Subsystem: "tool", Name: "rate_limited_total",
			Help: "Tool calls refused by a rate limit.", ConstLabels: cfg.constLabels,
		}, []string{"tool"}),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prom.Desc) {
	c.calls.Describe(ch)
	c.duration.Describe(ch)
	c.inFlight.Describe(ch)
	c.approvals.Describe(ch)
	c.rateLimited.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prom.Metric) {
	c.calls.Collect(ch)
	c.duration.Collect(ch)
	c.inFlight.Collect(ch)
	c.approvals.Collect(ch)
	c.rateLimited.Collect(ch)
}

// Start implements metrics.Recorder.
func (c *Collector) Start(toolName string) { c.inFlight.WithLabelValues(toolName).Inc() }

// Finish implements metrics.Recorder.
func (c *Collector) Finish(o metrics.Observation) {
	c.inFlight.WithLabelValues(o.Tool).Dec()
	c.calls.WithLabelValues(o.Tool, string(o.Status), string(o.Code)).Inc()
	c.duration.WithLabelValues(o.Tool, string(o.Status)).Observe(o.Duration.Seconds())
	if o.Approval != "" {
		c.approvals.WithLabelValues(o.Tool, o.Approval).Inc()
	}
	if o.RateLimited {
		c.rateLimited.WithLabelValues(o.Tool).Inc()
	}
}

var (
	_ prom.Collector   = (*Collector)(nil)
	_ metrics.Recorder = (*Collector)(nil)
)
