// Package errtext gives an error a text of its own while keeping the error
// it replaces reachable: the provider modules use it to say an SDK's
// failure once, in their words, without losing the SDK's error for
// errors.As.
package errtext

// New returns an error whose Error is text and whose Unwrap is err.
func New(text string, err error) error { return &wrapped{text: text, err: err} }

type wrapped struct {
	text string
	err  error
}

func (w *wrapped) Error() string { return w.text }
func (w *wrapped) Unwrap() error { return w.err }
