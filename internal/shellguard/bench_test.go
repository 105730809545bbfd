package shellguard

import (
	"sort"
	"strings"
	"testing"
	"time"

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

// BenchmarkClassifyLong: a long, realistic line (a chain of commands an
// agent might send, 16 KiB), and the p99 of single calls over the corpus.
func BenchmarkClassifyLong(b *testing.B) {
	line := strings.Repeat(`cd src/search && gofmt -w index.go && go test ./... 2>&1 | tee /tmp/log; `, 220)
	sc := shopScene()
	for b.Loop() {
		Classify(line, sc)
	}
	b.ReportMetric(float64(len(line)), "bytes")
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

// BenchmarkParseLong is the parser alone on BenchmarkClassifyLong's line:
// the floor under the guard's cost.
func BenchmarkParseLong(b *testing.B) {
	line := strings.Repeat(`cd src/search && gofmt -w index.go && go test ./... 2>&1 | tee /tmp/log; `, 220)
	for b.Loop() {
		syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	}
}
