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

// TestReport holds the whole report of one full run's lines
// (testdata/run.txt, the first of design record 034's round six; its
// RESULT lines were rebuilt from the run's progress lines on stderr, with
// the fields summarize reads, since run.sh kept its raw file only with
// RESULTS set): each
// row of the first table divides the best repeats, and names the medians'
// ratio beside it; the tables show medians with their range.
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
		"| in process, mcpdual ÷ floor: time (allocations) | 1.34× (3.6 vs 2.7 µs; 16 vs 13; medians 1.34×) | 0.96× (4.2 vs 4.3 µs; 17 vs 16; medians 0.95×) |",
		"| HTTP 16 workers, mcpdual ÷ floor: server CPU per request | 1.02× (28.0 vs 27.4; medians 0.78×) | 1.04× (29.5 vs 28.5; medians 0.82×) |",
		"| HTTP 16 workers, mcpdual ÷ floor: req/s | 1.01× (33,722.0 vs 33,396.0; medians 1.39×) |",
		"| HTTP 16 workers, mcpdual ÷ floor: p99 | 0.98× (1,453.0 vs 1,481.0; medians 0.72×) |",
		"| HTTP 16 workers, req/s: mcpdual ÷ gosdk / mcpgo / ts-node | 5.8× / 1.7× / 29.0× |",
		"| 2025-06-18 | floor | 24,119 [22,044–33,396] | 616 [449–694] | 2,025 [1,481–2,180] | 36.1 [27.4–38.6] | 18 | 1.00× | 1.00× |",
		"| 2025-06-18 | mcpdual | 33,585 [33,516–33,722] | 437 [435–445] | 1,455 [1,453–1,466] | 28.0 [28.0–28.2] | 19 [18–19] | 1.02× | 1.01× |",
		"| 2025-06-18 | mcpdual | 3.7 [3.6–3.8] | 3,888 | 16 | 1.34× | +3 |",
		"| Tools/10000/call | 6.7 [6.6–6.7] | 4,176 | 17 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks\n%s\nreport:\n%s", want, out.String())
		}
	}
	if err := report(&out, strings.NewReader("nothing measured\n")); err == nil {
		t.Error("a report of no lines: no error")
	}
}
