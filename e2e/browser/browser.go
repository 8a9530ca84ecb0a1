// Package browser drives Debian's headless Chromium (/usr/bin/chromium)
// through chromedp for the end-to-end tests of report.html and the live
// dashboard. It is a helper for tests, not part of diperf.
//
//	ctx, con := browser.New(t, time.Minute) // skips the test when Chromium is absent
//	err := chromedp.Do(ctx, chromedp.Navigate(url), ...)
//	for _, e := range con.Errors() { t.Error(e) } // console errors and uncaught exceptions
//	browser.Screenshot(ctx, t, "docs/figures/x.png") // the whole page
//	png, err := browser.ElementPNG(ctx, "#chart")     // one element, hover state kept
//
// New starts Chromium with the flags this machine needs (root, closed
// network: --no-sandbox and no background networking; a new empty profile
// in the test's temporary directory) and stops it at the test's cleanup.
// Console collects what the page logged from the moment New returns.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium is Debian's Chromium, the browser the tests drive.
const Chromium = "/usr/bin/chromium"

// Flags are the command-line switches Chromium gets besides its profile
// directory: headless, as root, with no GPU and no connection of its own
// (this machine's network is closed; without them Chromium's background
// requests are refused by the hundred).
var Flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync"}

// New starts a headless Chromium for t and returns a chromedp context with
// one tab, ended by timeout or at t's cleanup, and the console of that
// tab. It skips t when Chromium is not installed.
func New(t testing.TB, timeout time.Duration) (context.Context, *Console) {
	t.Helper()
	if _, err := os.Stat(Chromium); err != nil {
		t.Skipf("%s is absent: %v", Chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(Chromium),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1100, 900))
	for _, f := range Flags {
		opts = append(opts, chromedp.Flag(strings.TrimPrefix(f, "--"), true))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	con := &Console{}
	if err := chromedp.Listen(ctx, con.listen); err != nil { // starts the browser
		t.Fatalf("start %s: %v", Chromium, err)
	}
	return ctx, con
}

// Console is what a tab's page logged: console messages and uncaught
// exceptions.
type Console struct {
	mu       sync.Mutex
	messages []string
	errors   []string
}

// listen records console calls and exceptions.
func (c *Console) listen(ev any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			if a.Value != nil {
				args = append(args, string(a.Value))
			} else {
				args = append(args, a.Description)
			}
		}
		line := fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " "))
		c.messages = append(c.messages, line)
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			c.errors = append(c.errors, line)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		line := "uncaught exception: " + d.Text
		if d.Exception != nil {
			line += " " + d.Exception.Description
		}
		c.messages = append(c.messages, line)
		c.errors = append(c.errors, line)
	}
}

// Errors returns the console errors and uncaught exceptions so far.
func (c *Console) Errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errors...)
}

// Messages returns every console message and exception so far.
func (c *Console) Messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.messages...)
}

// Screenshot writes a PNG of the whole page of ctx's tab to path.
func Screenshot(ctx context.Context, t testing.TB, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
}

// ElementPNG returns a PNG of the element the CSS selector css finds in
// ctx's tab, as the page shows it now: unlike chromedp.Screenshot it
// neither scrolls nor resizes the page, so that a chart's hover state
// survives. The element must be inside the viewport.
func ElementPNG(ctx context.Context, css string) ([]byte, error) {
	sel, _ := json.Marshal(css)
	clip, err := chromedp.Run(ctx, chromedp.Evaluate[page.Viewport](`(() => {
		const b = document.querySelector(`+string(sel)+`).getBoundingClientRect();
		return {x: Math.round(b.left + scrollX), y: Math.round(b.top + scrollY),
			width: Math.round(b.width), height: Math.round(b.height), scale: 1};
	})()`))
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", css, err)
	}
	return chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, Clip: &clip})
		if err != nil {
			return nil, fmt.Errorf("screenshot of %s: %w", css, err)
		}
		return res.Data, nil
	})
}
