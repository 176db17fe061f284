package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The header and query names services take API keys under. Each must look
// secret by the one rule, so that a tool's arguments ({"headers":
// {"X-Honeycomb-Team": "..."}}), a header in text ("X-Honeycomb-Team: ...")
// and a query pair ("?appid=...") are masked, as "X-Api-Key" is.
func TestAttackVendorSecretNames(t *testing.T) {
	for _, tc := range []struct{ who, names string }{
		{"the common ones", "X-Api-Key x-api-key X-API-KEY x_api_key XApiKey x-apikey Api-Key apikey"},
		{"Google", "X-Goog-Api-Key"},
		{"OpenStack and many", "X-Auth-Token"},
		{"Cloudflare (legacy)", "X-Auth-Key"},
		{"Honeycomb", "X-Honeycomb-Team honeycomb_team HONEYCOMB_TEAM"},
		{"Azure API Management", "Ocp-Apim-Subscription-Key"},
		{"Figma", "X-Figma-Token"},
		{"GitLab", "Private-Token"},
		{"HashiCorp", "X-Vault-Token X-Consul-Token"},
		{"OpenWeather (?appid=)", "appid APPID"},
		{"Adzuna (app_id with app_key), Nutritionix", "app_id appId app_key appKey X-App-Key"},
		{"RapidAPI", "X-RapidAPI-Key"},
		{"Datadog", "X-Dd-Api-Key DD-API-KEY DD-APPLICATION-KEY X-Dd-Application-Key application_key"},
		{"Shopify", "X-Shopify-Access-Token"},
		{"New Relic", "X-License-Key license_key X-Insert-Key"},
		{"Azure Functions", "x-functions-key"},
		{"Twitter, OAuth 1", "consumer_key consumerKey"},
		{"Hasura", "X-Hasura-Admin-Secret"},
		{"Postmark", "X-Postmark-Server-Token"},
		{"Algolia", "X-Algolia-API-Key"},
		{"Parse", "X-Parse-Master-Key"},
	} {
		for _, name := range strings.Fields(tc.names) {
			t.Run(name, func(t *testing.T) {
				assert.True(t, LooksSecret(name), "%q (%s) should look secret", name, tc.who)
				assert.True(t, LooksSecretEnv(name), "%q (%s) should look secret as an environment name", name, tc.who)
				args := json.RawMessage(`{"headers":{"` + name + `":"c0ffee-0123456789abcdef"}}`)
				assert.NotContains(t, string(Args(args, nil)), "c0ffee", "the value under %q in arguments", name)
				assert.NotContains(t, String("curl -H '"+name+": c0ffee-0123456789abcdef' https://api.example.com"), "c0ffee", "a %q header in text", name)
				assert.NotContains(t, String("https://api.example.com/data?"+name+"=c0ffee0123456789abcdef&q=1"), "c0ffee", "a %q query pair in text", name)
			})
		}
	}
}

// Ordinary names that share words with those above stay visible.
func TestVendorSecretNamesLeaveOrdinaryNames(t *testing.T) {
	for _, name := range strings.Fields(`appname app_name application application_id X-Algolia-Application-Id app apps
		app_version whatsapp_id team team_id teams X-Honeycomb-Dataset honeycomb title
		license license_type consumer consumer_group functions insert insert_id
		X-Request-Id X-Requested-With monkey key keyboard happiness`) {
		t.Run(name, func(t *testing.T) {
			assert.False(t, LooksSecret(name), "%q should not look secret", name)
			args := `{"` + name + `":"visible-0123"}`
			assert.Equal(t, args, string(Args(json.RawMessage(args), nil)), "%q stays visible in arguments", name)
			assert.Equal(t, name+": visible-0123", String(name+": visible-0123"), "%q stays visible in text", name)
		})
	}
}
