package main

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/hall-dev/hall/internal/web"
)

// newRouter maps every route to its handler. This is the only file that
// knows Echo: handlers are net/http functions, adapted here.
func newRouter(h *web.Handler, log *slog.Logger) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(middleware.Recover())
	e.Use(echo.WrapMiddleware(web.SecurityHeaders))
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		he, ok := err.(*echo.HTTPError)
		status, code := http.StatusInternalServerError, "internal"
		if ok {
			status = he.Code
			code = map[int]string{404: "not_found", 405: "method_not_allowed"}[status]
			if code == "" {
				code = "http_error"
			}
		}
		if !c.Response().Committed {
			_ = c.JSON(status, map[string]string{"error": code, "detail": http.StatusText(status)})
		}
	}

	e.GET("/", wrap(h.HandlePage))
	e.GET("/static/:name", wrap(h.HandleStatic))
	e.GET("/api/presences", wrap(h.HandlePresencesIndex))
	e.GET("/api/presences/stream", wrap(h.HandlePresencesStream))
	e.GET("/api/health", wrap(h.HandleHealth))
	e.GET("/api/north", wrap(h.HandleNorth))
	e.GET("/api/cockpit", wrap(h.HandleCockpit))
	e.POST("/api/presences/beat", wrap(web.RequireToken(h.WriteToken, h.HandleBeat)))
	e.POST("/api/hooks/:agent", wrap(web.RequireToken(h.WriteToken, h.HandleHook)))
	e.DELETE("/api/presences/:presence_id", wrap(web.RequireToken(h.WriteToken, h.HandleLeave)))
	return e
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
