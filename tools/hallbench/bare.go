package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"
)

// serveBare serves the floor the Hall is compared with: Echo answering 204
// to the same routes, reading the body as the beat handler does. It prints
// its URL on the first line of stdout.
func serveBare(ctx context.Context, addr string) error {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	noContent := func(c echo.Context) error {
		_, _ = io.Copy(io.Discard, c.Request().Body)
		return c.NoContent(http.StatusNoContent)
	}
	e.POST("/api/presences/beat", noContent)
	e.GET("/api/presences", noContent)
	e.POST("/api/hooks/:agent", noContent)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "http://%s\n", ln.Addr())
	srv := &http.Server{Handler: e}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
