package shellguard

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"mvdan.cc/sh/v3/syntax"
)

// BenchmarkClassify classifies every corpus line once per iteration, in
// the shop scene; ns/op divided by the line count is the cost of a line.
func BenchmarkClassify(b *testing.B) {
	var lines []string
	for _, name := range []string{"commands.tsv", "more.tsv"} {
		for _, r := range readTSV(b, name, false, name == "more.tsv") {
			lines = append(lines, r.cmd)
		}
	}
	sc := shopScene()
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			Classify(l, sc)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// BenchmarkClassifyLong: long lines as agents send them, at the longest
// the guard reads (MaxCommandLen) and past it, up to the longest the Hall
// passes (contract.MaxCommand): a commit message in a here-document (the
// common long line: mostly text), a chain of short commands (the densest
// ordinary line), and a file written from a here-document.
func BenchmarkClassifyLong(b *testing.B) {
	sc := shopScene()
	for _, n := range []int{1 << 10, MaxCommandLen, contract.MaxCommand} {
		for _, shape := range longShapes {
			line := shape.gen(n)
			b.Run(fmt.Sprintf("%s/%d", shape.name, len(line)), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					Classify(line, sc)
				}
			})
		}
	}
}

// longShapes are the long lines the benchmarks and tests read.
var longShapes = []struct {
	name string
	gen  func(n int) string
}{
	{"commit", commitLine},
	{"chain", chainLine},
	{"file", fileLine},
}

// commitLine is a commit whose message is a here-document, as agents
// write one (`git commit -m "$(cat <<'EOF' … EOF)"`), at most n bytes.
func commitLine(n int) string {
	const para = "Round the cart total once, at checkout, so the tax line and the total agree; the rounding moved from the line items to the cart.\n"
	head, tail := "git commit -m \"$(cat <<'EOF'\nFix cart rounding\n\n", "\nCo-Authored-By: an agent <agent@example.com>\nEOF\n)\""
	return head + strings.Repeat(para, max(1, (n-len(head)-len(tail))/len(para))) + tail
}

// chainLine is short commands chained, at most n bytes (at least one link).
func chainLine(n int) string {
	const link = "cd src/search && gofmt -l index.go && go vet ./... 2>&1 | tee -a /tmp/log; cd ..; "
	return strings.Repeat(link, max(1, n/len(link)))
}

// fileLine writes a Go file from a quoted here-document, at most n bytes.
func fileLine(n int) string {
	const fn = "func (c *Cart) Total() Money {\n\tvar sum Money\n\tfor _, it := range c.Items {\n\t\tsum += it.Price * Money(it.Qty)\n\t}\n\treturn sum.Round()\n}\n\n"
	head, tail := "cat > src/search/total.go <<'EOF'\npackage search\n\n", "EOF"
	return head + strings.Repeat(fn, max(1, (n-len(head)-len(tail))/len(fn))) + tail
}

func BenchmarkClassifyP99(b *testing.B) {
	var lines []string
	for _, name := range []string{"commands.tsv", "more.tsv"} {
		for _, r := range readTSV(b, name, false, name == "more.tsv") {
			lines = append(lines, r.cmd)
		}
	}
	sc := shopScene()
	var ds []time.Duration
	for b.Loop() {
		for _, l := range lines {
			t := time.Now()
			Classify(l, sc)
			ds = append(ds, time.Since(t))
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1000, "p50-µs")
}

// BenchmarkParseLong is the parser alone on BenchmarkClassifyLong's lines
// at MaxCommandLen: the floor under the guard's cost.
func BenchmarkParseLong(b *testing.B) {
	for _, shape := range longShapes {
		line := shape.gen(MaxCommandLen)
		b.Run(fmt.Sprintf("%s/%d", shape.name, len(line)), func(b *testing.B) {
			for b.Loop() {
				syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
			}
		})
	}
}
