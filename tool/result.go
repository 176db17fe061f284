package tool

import (
	"encoding/json"
	"time"
)

// ContentType names the kind of a content block (the MCP content types).
type ContentType string

// The content block types.
const (
	ContentText         ContentType = "text"
	ContentImage        ContentType = "image"
	ContentAudio        ContentType = "audio"
	ContentResourceLink ContentType = "resource_link"
	ContentResource     ContentType = "resource"
)

// Content is one block of unstructured output: text, an image, audio, a link
// to a resource, or an embedded resource.
type Content struct {
	Type ContentType `json:"type"`
	// Text is the text of a text block, or an embedded text resource.
	Text string `json:"text,omitempty"`
	// Data holds image, audio or embedded binary resource bytes.
	Data []byte `json:"data,omitempty"`
	// MIMEType of Data or of the resource.
	MIMEType string `json:"mime_type,omitempty"`
	// URI of a resource link or embedded resource.
	URI string `json:"uri,omitempty"`
	// Name and Title of a resource link.
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	// Description and Size (bytes, 0 when unknown) of a resource link.
	Description string `json:"description,omitempty"`
	Size        int64  `json:"size,omitempty"`
	// Annotations are the block's MCP annotations, kept as they came.
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
	// Meta is the block's MCP _meta, kept as it came.
	Meta map[string]any `json:"meta,omitempty"`
}

// ContentAnnotations are MCP's hints about a content block: who it is for
// ("user", "assistant"), how important it is (0 to 1) and when it last
// changed (ISO 8601).
type ContentAnnotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     float64  `json:"priority,omitempty"`
	LastModified string   `json:"last_modified,omitempty"`
}

// TextContent returns a text block.
func TextContent(s string) Content { return Content{Type: ContentText, Text: s} }

// Timings break a call's duration down by stage.
type Timings struct {
	// Validate is the time spent decoding and validating arguments.
	Validate time.Duration `json:"validate"`
	// Backend is the time the backend ran (last attempt).
	Backend time.Duration `json:"backend"`
	// Total is the time from Execute's start to the result.
	Total time.Duration `json:"total"`
}

// Usage is the resource usage a backend reports (shell tools fill it from rusage).
type Usage struct {
	UserCPU   time.Duration `json:"user_cpu"`
	SystemCPU time.Duration `json:"system_cpu"`
	MaxRSS    int64         `json:"max_rss_bytes"`
}

// Result is the outcome of a call. The executor never returns a nil Result.
type Result struct {
	// CallID and Tool echo the call.
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Status is how the call ended.
	Status Status `json:"status"`
	// Output is structured output (a JSON value), if the tool produced one.
	Output json.RawMessage `json:"output,omitempty"`
	// Content is unstructured output.
	Content []Content `json:"content,omitempty"`
	// Error is set when Status is not StatusSucceeded.
	Error *Error `json:"error,omitempty"`
	// StartedAt is when Execute began.
	StartedAt time.Time `json:"started_at"`
	// Timings break the duration down.
	Timings Timings `json:"timings"`
	// Attempts is how many times the backend ran (the retry extension sets
	// it above 1).
	Attempts int `json:"attempts,omitempty"`
	// Usage is the resource usage, when the backend measured it.
	Usage *Usage `json:"usage,omitempty"`
	// Metadata holds backend- and extension-specific facts: "stack" for a
	// panic, "modified_args" after an approver changed them, "cache" on a hit.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// OK reports whether the call succeeded.
func (r *Result) OK() bool { return r != nil && r.Status == StatusSucceeded }

// SettledStatus returns the status r ends with, by the one rule the
// executor settles every result on: with an Error, the Error's
// (Code.Status), unless Status already names another outcome (an
// extension's StatusDenied is kept), since a result that carries an error
// never succeeded; without one, Status, or StatusSucceeded when it is
// empty. Extensions that report a result before the executor settles it
// (logs, metrics, traces, the audit trail) read its status with it.
func (r *Result) SettledStatus() Status {
	switch {
	case r.Error != nil && (r.Status == "" || r.Status == StatusSucceeded):
		return r.Error.Code.Status()
	case r.Status == "":
		return StatusSucceeded
	}
	return r.Status
}

// Err returns r.Error as an error, nil on success (never a typed nil).
func (r *Result) Err() error {
	if r == nil || r.Error == nil {
		return nil
	}
	return r.Error
}

// SetMeta sets a metadata key, allocating the map when needed.
func (r *Result) SetMeta(key string, v any) {
	if r.Metadata == nil {
		r.Metadata = make(map[string]any, 2)
	}
	r.Metadata[key] = v
}

// Text returns the text of all text blocks, joined by newlines.
func (r *Result) Text() string {
	var s string
	for i, c := range r.Content {
		if c.Type != ContentText {
			continue
		}
		if i > 0 && s != "" {
			s += "\n"
		}
		s += c.Text
	}
	return s
}

// Failure returns a result for call that failed with err (converted with
// AsError), with the status that goes with its code.
func Failure(call *Call, err error) *Result {
	te := AsError(err)
	r := &Result{Status: te.Code.Status(), Error: te}
	if call != nil {
		r.CallID, r.Tool = call.ID, call.Name
	}
	return r
}

// Fail is Failure with a new *Error built from code and message.
func Fail(call *Call, code Code, message string) *Result {
	return Failure(call, NewError(code, message))
}
