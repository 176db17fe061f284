package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An Authorization header's credentials are everything after its name:
// a scheme, then a token (Bearer, Basic, Negotiate, NTLM, Okta's SSWS,
// Elastic's ApiKey) or a list of parameters (Digest's response, AWS
// Signature Version 4's Signature). The rule masked the word after the
// name, or after one of five schemes it knew: any other scheme was taken
// for the credential and masked in its place, and the credential itself
// (a Kerberos ticket, an NTLM message, an Okta API token) went on whole;
// Digest and SigV4 kept every parameter after the first.
func TestAttackS17AuthorizationSchemes(t *testing.T) {
	cases := []struct {
		in     string
		secret []string
		keep   []string
	}{
		{"Authorization: Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnag", []string{"YIIGhgYGKwYBBQUCoIIGejCCBnag"}, nil},
		{"proxy-authorization: ntlm TlRMTVNTUAABAAAAB4IIogAAAAAAAAAAAAAAAAAAAAAGAbEdAAAADw==", []string{"TlRMTVNTUAABAAAAB4II"}, nil},
		{"Authorization: SSWS 00QCjAl4MlV-WPXM-8k3iFFFE2RbWwzjWl0tD6kJoH", []string{"00QCjAl4MlV-WPXM"}, nil},
		{"Authorization: ApiKey VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==", []string{"VnVhQ2ZHY0JDZGJrUW0"}, nil},
		{"curl -H 'Authorization: SSWS 00QCjAl4MlV-WPXM-8k3iFFFE2RbWwzjWl0tD6kJoH' https://acme.okta.com/api/v1/users", []string{"00QCjAl4MlV-WPXM"}, []string{"https://acme.okta.com/api/v1/users"}},
		{`Authorization: Digest username="bob", realm="api", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41"`,
			[]string{"6629fae49393a05397450978507c4ef1", "dcd98b7102dd2f0e8b11d0f600bfb0c093"}, nil},
		{`{"error":"401 for Authorization: Digest username=\"bob\", response=\"6629fae49393a05397450978507c4ef1\"","status":401}`,
			[]string{"6629fae49393a05397450978507c4ef1"}, []string{`"status":401`}},
		{"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
			[]string{"5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"}, nil},
		// Pinned: a known scheme stays readable, and what follows the
		// credential is not taken for it.
		{"Authorization: Bearer tok-8f2a9c1d7e6b5a4c rejected by the upstream", []string{"tok-8f2a9c1d7e6b5a4c"}, []string{"Authorization: Bearer " + Mask, "rejected by the upstream"}},
		{`{"h":"Authorization: Bearer tok-8f2a9c1d7e6b5a4c","x":"y"}`, []string{"tok-8f2a9c1d7e6b5a4c"}, []string{`"x":"y"`}},
		{"Authorization: tok-8f2a9c1d7e6b5a4c", []string{"tok-8f2a9c1d7e6b5a4c"}, nil},
	}
	for _, tc := range cases {
		got := Message(tc.in, nil)
		for _, s := range tc.secret {
			assert.NotContains(t, got, s, "in %q", tc.in)
		}
		for _, k := range tc.keep {
			assert.Contains(t, got, k, "in %q", tc.in)
		}
		assert.True(t, strings.Contains(got, Mask), "%q: nothing masked", tc.in)
	}
}
