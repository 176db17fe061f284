// Package origin names a URL's web origin the one way the SDK compares
// them: the HTTP tools and the MCP client follow a redirect with its
// credentials only within one origin.
package origin

import (
	"net/url"
	"strings"
)

// Of returns u's scheme, host and port, lower-cased, with the port made
// explicit ("https://example.com:443"), so that two URLs of one origin
// give the same string.
func Of(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
