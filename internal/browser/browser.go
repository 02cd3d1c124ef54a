// Package browser starts headless Chromium (Debian's chromium package) for
// the tests and benchmarks of teamctl serve's page, driven by chromedp. It
// decides where Chromium is and when its absence is a failure (CI) rather
// than a skip.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path is Chromium's program: $TEAMCTL_CHROMIUM, else chromium from PATH.
func Path() (string, error) {
	if p := os.Getenv("TEAMCTL_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on PATH (apt-get install chromium; or set TEAMCTL_CHROMIUM)")
}

// Need is Chromium for a browser test: skipped under -short; without
// Chromium a failure when CI=true (CI installs it: a skip would hide the
// tests), a skip otherwise.
func Need(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test (headless Chromium): not under -short")
	}
	p, err := Path()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skip(err)
	}
	return p
}

// Start starts headless Chromium (exec) with a window of w×h and returns a
// chromedp context of its first tab; cancel ends the browser, which chromedp
// started and ends by its own process.
func Start(ctx context.Context, exec string, w, h int) (context.Context, context.CancelFunc, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exec),
		chromedp.NoSandbox, // as root in a container, Chromium's sandbox cannot start
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(w, h),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	// The window alone does not make a phone: headless Chromium keeps a
	// wider one (500 px at least). The viewport is emulated.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		bcancel()
		acancel()
		return nil, nil, fmt.Errorf("start chromium %s: %w", exec, err)
	}
	return bctx, func() { bcancel(); acancel() }, nil
}
