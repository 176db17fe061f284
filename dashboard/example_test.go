package dashboard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
)

// Mount the dashboard on the program's own server, behind a token. A
// request without it gets nothing.
func Example() {
	queue := approval.NewQueue()
	gate := approvalgate.New(queue)
	ex := executor.MustNew(registry.New(), executor.WithExtensions(gate, gate.Guard()))

	dash, err := dashboard.New(ex,
		dashboard.WithToken("a-long-random-token-from-crypto-rand"),
		dashboard.WithQueue(queue))
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/dashboard/", http.StripPrefix("/dashboard", dash))

	for _, auth := range []string{"", "Bearer a-long-random-token-from-crypto-rand"} {
		req := httptest.NewRequest(http.MethodGet, "/dashboard/api/approvals", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Body.String())
	}
	// Output:
	// 401 dashboard: a token is required: open the dashboard with the link that carries its token (…/#token=…), or send Authorization: Bearer … (over plain HTTP to a network address the page does not send its token: serve the dashboard over HTTPS)
	//
	// 200 []
}
