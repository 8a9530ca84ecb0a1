package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// dashNoCookie checks that the browser holds no cookie for the dashboard
// it shows: a host's cookies go to every port of it, so one holding the
// token would reach any other server of the host (issue 21, row 16).
func dashNoCookie(t *testing.T, ctx context.Context) {
	t.Helper()
	res, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cookies {
		t.Errorf("the browser holds the cookie %s (path %s) of the dashboard's host", c.Name, c.Path)
	}
}
