package guard

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/origin"
)

// ErrPlainHTTP is returned (wrapped) for an endpoint reached over plain
// http:// on a host that is not this machine, unless the adapter's option
// allows it.
var ErrPlainHTTP = errors.New("plain http to a host other than this machine")

// CheckScheme refuses an endpoint u that would carry the API key (and the
// conversation) in clear text: http:// to a host that is not loopback
// (origin.Loopback: localhost, 127.0.0.0/8, ::1). https, and http to this
// machine (a local model server), pass; so does every u when allow is set.
// option names the adapter's option that allows it, for the error's text.
func CheckScheme(u *url.URL, allow bool, option string) error {
	if allow || u == nil || !strings.EqualFold(u.Scheme, "http") || origin.Loopback(u.Host) {
		return nil
	}
	return fmt.Errorf("%w: the endpoint %s would get the API key and the conversation in clear text; "+
		"use https, or, for a server you trust on your network (a LAN model server), allow it with %s",
		ErrPlainHTTP, named(u), option)
}

// SchemeCheck returns a request option of the SDK whose
// option.RequestOption is like's type that refuses the request (before
// anything is sent, so the SDK does not retry it) when the base URL the
// client's options chose fails CheckScheme. It reads the config's BaseURL
// field, or DefaultBaseURL when BaseURL is nil, by reflection; an SDK
// whose config has neither is refused (ErrUnknownConfig).
func SchemeCheck[C any](like interface{ Apply(C) error }, allow bool, option string) ConfigFunc[C] {
	return func(cfg C) error {
		if allow {
			return nil
		}
		v := reflect.ValueOf(cfg)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return unknownConfig(cfg)
		}
		urlType := reflect.TypeFor[*url.URL]()
		for _, name := range []string{"BaseURL", "DefaultBaseURL"} {
			f := v.Elem().FieldByName(name)
			if !f.IsValid() || f.Type() != urlType {
				return unknownConfig(cfg)
			}
			if !f.IsNil() {
				return CheckScheme(f.Interface().(*url.URL), false, option)
			}
		}
		return nil
	}
}
