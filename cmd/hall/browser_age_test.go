package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAgeFormat: the page's script ticks ages in the one format,
// the table contract.Age is tested against (internal/contract/testdata/
// age.json). The page's clock is held, so the script's now is exactly the
// page's served_at_ms, and each case is a <time> that old.
func TestBrowserAgeFormat(t *testing.T) {
	raw, err := os.ReadFile("../../internal/contract/testdata/age.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Ms   int64  `json:"ms"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil || len(cases) == 0 {
		t.Fatalf("age table: %d cases, %v", len(cases), err)
	}
	m := MustOpenHall(t, Config{})
	b := openBrowser(t)
	b.holdClock(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the script to run", `tid('status').dataset.state !== 'static'`)
	eval[int](t, b, `(() => {
  const served = parseInt(document.getElementById('hall').getAttribute('data-served-at-ms'), 10);
  const box = document.createElement('div');
  box.id = 'age-cases';
  for (const c of `+string(raw)+`) {
    const el = document.createElement('time');
    el.setAttribute('data-ms', String(served - c.ms));
    box.appendChild(el);
  }
  document.body.appendChild(box);
  return box.children.length;
})()`)
	b.waitFor(t, "the script to tick the cases", `Array.from(document.querySelectorAll('#age-cases time')).every((e) => e.textContent !== '')`)
	got := eval[[]string](t, b, `Array.from(document.querySelectorAll('#age-cases time')).map((e) => e.textContent)`)
	if len(got) != len(cases) {
		t.Fatalf("%d ages ticked, want %d", len(got), len(cases))
	}
	for i, c := range cases {
		if got[i] != c.Text {
			t.Errorf("age of %d ms: the script wrote %q, want %q", c.Ms, got[i], c.Text)
		}
	}
}
