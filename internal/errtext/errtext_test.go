package errtext_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/toolbelt-go/toolbelt/internal/errtext"
)

func TestNewKeepsTheCause(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}
	err := errtext.New("the file x is missing", cause)
	if err.Error() != "the file x is missing" {
		t.Fatalf("text %q", err.Error())
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("cause lost: %v", err)
	}
}

func ExampleNew() {
	err := errtext.New("upstream failed once, said once", fmt.Errorf("HTTP 503: HTTP 503 Service Unavailable"))
	fmt.Println(err)
	fmt.Println(errors.Unwrap(err))
	// Output:
	// upstream failed once, said once
	// HTTP 503: HTTP 503 Service Unavailable
}
