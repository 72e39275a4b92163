package main

import "testing"

// The ratios divide the best repeats: a slow spell that lands on two of
// three repeats of one side moves the medians' ratio but not this one.
func TestRatio_BestRepeats(t *testing.T) {
	ours := []float64{28.0, 34.1, 29.5}  // one slow repeat
	floor := []float64{38.6, 27.4, 36.1} // two slow repeats
	base := &wire{cpu: floor, rps: []float64{24119, 33396, 22044}}
	cpu := func(w *wire) []float64 { return w.cpu }
	if got, want := ratio(ours, base, cpu, lower), "1.02×"; got != want {
		t.Errorf("CPU ratio = %s, want %s (28.0 / 27.4)", got, want)
	}
	if got := median(ours) / median(floor); got > 0.85 {
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
