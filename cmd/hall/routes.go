package main

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/web"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// newRouter mounts the Hall's route table (web.Handler.Routes) on Echo.
// This is the only file that knows Echo: handlers are net/http functions,
// adapted here.
func newRouter(h *web.Handler, log *slog.Logger) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(middleware.Recover())
	e.Use(echo.WrapMiddleware(web.SecurityHeaders))
	// Handlers answer for themselves and return no error: what reaches
	// here is the router's. A path no route serves is NotFound's (the page
	// for a browser, JSON under /api/, behind the edge's rules); a known
	// path asked with another method is a 405.
	notFound := h.NotFound()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		var he *echo.HTTPError
		if !errors.As(err, &he) {
			// A panic Recover caught, or a bug: logged once, answered as
			// internal by the one writer.
			httpwire.WriteError(c.Response(), log, err)
			return
		}
		if he.Code == http.StatusNotFound {
			notFound(c.Response(), c.Request())
			return
		}
		code := "http_error"
		if he.Code == http.StatusMethodNotAllowed {
			code = "method_not_allowed"
		}
		httpwire.WriteError(c.Response(), log, contract.Refuse(httpwire.KindOf(he.Code), code, "%s", http.StatusText(he.Code)))
	}

	for _, rt := range h.Routes() {
		e.Add(rt.Method, echoPath(rt.Path), wrap(rt.Handler))
	}
	return e
}

// echoPath turns a net/http pattern path into Echo's: "{name}" becomes
// ":name", and "{$}" (an exact match, which Echo's paths always are) is
// dropped.
func echoPath(p string) string {
	p = strings.ReplaceAll(p, "{$}", "")
	var b strings.Builder
	for {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			b.WriteString(p)
			break
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			b.WriteString(p)
			break
		}
		b.WriteString(p[:i])
		b.WriteString(":" + p[i+1:i+j])
		p = p[i+j+1:]
	}
	return b.String()
}

// wrap adapts a net/http handler to Echo, carrying path parameters over as
// net/http path values (r.PathValue).
func wrap(f http.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		for i, name := range c.ParamNames() {
			r.SetPathValue(name, c.ParamValues()[i])
		}
		f(c.Response(), r)
		return nil
	}
}
