package main

import (
	"os"
	"strings"
	"testing"
)

// The ratios divide the best repeats: a slow spell that lands on two of
// three repeats of one side moves the medians' ratio but not this one.
func TestRatio_BestRepeats(t *testing.T) {
	// A run's 2025-06-18 figures at 16 workers: the floor's repeats
	// had two slow spells, mcpdual's none.
	ours := []float64{28.0, 28.0, 28.2}
	floor := []float64{38.6, 27.4, 36.1}
	base := &wire{cpu: floor, rps: []float64{24119, 33396, 22044}}
	cpu := func(w *wire) []float64 { return w.cpu }
	if got, want := ratio(ours, base, cpu, lower), "1.02×"; got != want {
		t.Errorf("CPU ratio = %s, want %s (28.0 / 27.4)", got, want)
	}
	if got := median(ours) / median(floor); got > 0.8 {
		t.Fatalf("the example no longer shows the medians moving: %.2f", got)
	}
	rps := func(w *wire) []float64 { return w.rps }
	if got, want := ratio([]float64{33585, 33722, 33516}, base, rps, higher), "1.01×"; got != want {
		t.Errorf("req/s ratio = %s, want %s (33,722 / 33,396)", got, want)
	}
	if got := ratio(ours, nil, cpu, lower); got != "–" {
		t.Errorf("ratio without a floor = %s, want –", got)
	}
	if got := ratio(ours, &wire{}, cpu, lower); got != "–" {
		t.Errorf("ratio against a floor without CPU figures = %s, want –", got)
	}
	b := &inproc{us: []float64{2.7, 2.8, 2.7}}
	if got, want := ratio([]float64{3.7, 3.6, 3.8}, b, func(b *inproc) []float64 { return b.us }, lower), "1.33×"; got != want {
		t.Errorf("in-process ratio = %s, want %s", got, want)
	}
}

// paired divides repeat by repeat: a slow spell that spans both runs of
// a pair leaves that pair's ratio near the others.
func TestPaired(t *testing.T) {
	// The second run of round seven, 2025-06-18 at 16 workers: the third
	// repeat of both ran in a slow spell.
	ours := []float64{28.96, 28.00, 44.59}
	floor := []float64{27.18, 26.33, 39.11}
	if got, want := paired(ours, floor), "1.07 [1.06–1.14]"; got != want {
		t.Errorf("paired = %q, want %q", got, want)
	}
	if got, want := paired(ours[:2], floor), "1.06 [1.06–1.07]"; got != want {
		t.Errorf("paired with a repeat missing = %q, want %q (the repeats both sides have)", got, want)
	}
	if got := paired(nil, floor); got != "–" {
		t.Errorf("paired without repeats = %q, want –", got)
	}
}

func TestMedianAndCell(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{3, 1, 2}, "2.0 [1.0–3.0]"},
		{[]float64{4, 1, 2, 3}, "2.5 [1.0–4.0]"},
		{[]float64{7, 7}, "7.0"},
		{nil, "–"},
		{[]float64{1234.5}, "1,234.5"},
	} {
		if got := cell(c.xs, 1); got != c.want {
			t.Errorf("cell(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
}

// TestReport holds the whole report of one full run's raw lines
// (testdata/run.txt: RESULTS of the second run of design record 034's
// round seven, the README's tables): each row of the first table divides
// the best repeats and names the medians' ratio beside it, the paired row
// divides each repeat by the floor's beside it, and the tables show
// medians with their range.
func TestReport(t *testing.T) {
	f, err := os.Open("testdata/run.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	if err := report(&out, f); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| in process, mcpdual ÷ floor: time (allocations) | 1.42× (3.8 vs 2.6 µs; 16 vs 13; medians 1.36×) | 0.96× (4.3 vs 4.4 µs; 17 vs 16; medians 1.01×) |",
		"| HTTP 16 workers, mcpdual ÷ floor: server CPU per request | 1.06× (28.0 vs 26.3; medians 1.07×) | 1.04× (28.7 vs 27.7; medians 1.06×) |",
		"| HTTP 16 workers, mcpdual ÷ floor: req/s | 0.96× (33,779.7 vs 35,321.1; medians 0.96×) | 0.97× (32,993.8 vs 34,139.7; medians 0.94×) |",
		"| HTTP 16 workers, mcpdual ÷ floor: p99 | 1.05× (1,496.4 vs 1,424.0; medians 1.06×) | 1.04× (1,530.1 vs 1,476.3; medians 1.02×) |",
		"| HTTP 16 workers, server CPU per request, each repeat ÷ the floor's beside it: mcpdual / mcpdual-func | 1.07 [1.06–1.14] / 1.14 [0.91–1.36] | 1.06 [1.04–1.10] / 1.02 [0.94–1.36] |",
		"| HTTP 16 workers, req/s: mcpdual ÷ gosdk / mcpgo / ts-node | 5.9× / 1.6× / 29.9× | 8.2× / 3.2× / 32.4× |",
		"| 2025-06-18 | floor | 34,219 [23,219–35,321] | 441 [426–635] | 1,434 [1,424–2,152] | 27.2 [26.3–39.1] | 18 | 1.00× | 1.00× |",
		"| 2025-06-18 | mcpdual | 32,808 [21,980–33,780] | 447 [435–656] | 1,514 [1,496–2,482] | 29.0 [28.0–44.6] | 18 [18–19] | 1.06× | 0.96× |",
		"| 2025-06-18 | mcpdual | 3.8 [3.8–4.3] | 3,888 | 16 | 1.42× | +3 |",
		"| Tools/10000/call | 6.8 [6.5–6.8] | 4,176 | 17 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks\n%s\nreport:\n%s", want, out.String())
		}
	}
	if err := report(&out, strings.NewReader("nothing measured\n")); err == nil {
		t.Error("a report of no lines: no error")
	}
}
