package bert

import (
	"net"
	"net/http"

	"github.com/emily-go/emily/serving"
)

// HTTPLimits bound what one client can hold of an HTTP server (issue 19).
// They live in the serving layer now, which every model's server uses;
// these names stay for serve-embeddings' callers.
type HTTPLimits = serving.HTTPLimits

// DefaultHTTPLimits are serving.DefaultHTTPLimits.
var DefaultHTTPLimits = serving.DefaultHTTPLimits

// NewHTTPServer is serving.NewHTTPServer.
func NewHTTPServer(h http.Handler, l HTTPLimits) *http.Server { return serving.NewHTTPServer(h, l) }

// LimitListener is serving.LimitListener.
func LimitListener(ln net.Listener, n int) net.Listener { return serving.LimitListener(ln, n) }
