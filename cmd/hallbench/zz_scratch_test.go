package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestScratchPageCost(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	b := &bench{tmp: tmp}
	var err error
	os.Chdir("../..")
	if b.hall, err = buildHall(ctx, tmp); err != nil {
		t.Fatal(err)
	}
	root := b.newRoot("p")
	if err := writeRegistry(root, 1000, 50, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	h, err := b.startHall(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer h.stop()
	waitETag(h.url, 1000)
	tab, done, err := openChromium(ctx, chromiumPath())
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	chromedp.Do(tab, chromedp.Navigate(h.url+"/"))
	time.Sleep(2 * time.Second)
	js := os.Getenv("JS")
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	fmt.Println(v, err)
}
