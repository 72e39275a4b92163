// Command summarize turns what run.sh collected (the benchmark lines of
// go test -benchmem and the RESULT lines of cmd/load) into one Markdown
// table: per revision and variant, the median and [min–max] of the
// repeats, and the medians' ratios to the floor and to mcpdual.
//
//	summarize results.txt   (or the lines on stdin)
//
// Other lines are ignored, so a whole log can be fed to it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/internal/bench"
)

// benchLine matches "BenchmarkToolsCall/<proto>/<variant>[-N] iters ns B allocs".
// The variant comes last in the name, so the optional -N (GOMAXPROCS) can
// only be a suffix of it.
var benchLine = regexp.MustCompile(`^BenchmarkToolsCall/(\S+)/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op`)

type key struct{ proto, variant string }

// samples holds one value per repeat for each measure.
type samples struct{ us, bytes, allocs, rps, p50 []float64 }

func main() {
	var in io.Reader = os.Stdin
	if len(os.Args) > 1 {
		var rs []io.Reader
		for _, p := range os.Args[1:] {
			f, err := os.Open(p)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			rs = append(rs, f)
		}
		in = io.MultiReader(rs...)
	}
	data := map[key]*samples{}
	get := func(k key) *samples {
		if data[k] == nil {
			data[k] = &samples{}
		}
		return data[k]
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if m := benchLine.FindStringSubmatch(line); m != nil {
			s := get(key{m[1], m[2]})
			s.us = append(s.us, num(m[3])/1e3)
			s.bytes = append(s.bytes, num(m[4]))
			s.allocs = append(s.allocs, num(m[5]))
		} else if js, ok := strings.CutPrefix(line, "RESULT "); ok {
			var r bench.LoadResult
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				log.Fatalf("%q: %v", line, err)
			}
			s := get(key{r.Proto, r.Label})
			s.rps = append(s.rps, r.RPS)
			s.p50 = append(s.p50, r.P50Us)
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	if len(data) == 0 {
		log.Fatal("no benchmark or RESULT lines in the input")
	}

	fmt.Println("| protocol | variant | µs/op | B/op | allocs/op | req/s | p50 µs | µs/op ÷ floor | µs/op ÷ mcpdual | req/s ÷ floor | req/s ÷ mcpdual |")
	fmt.Println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, k := range order(data) {
		s, floor, dual := data[k], data[key{k.proto, bench.Floor}], data[key{k.proto, bench.MCPDual}]
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k.proto, k.variant,
			cell(s.us, 1), cell(s.bytes, 0), cell(s.allocs, 0), cell(s.rps, 0), cell(s.p50, 0),
			ratio(s, floor, func(s *samples) []float64 { return s.us }),
			ratio(s, dual, func(s *samples) []float64 { return s.us }),
			ratio(s, floor, func(s *samples) []float64 { return s.rps }),
			ratio(s, dual, func(s *samples) []float64 { return s.rps }))
	}
}

// order lists the keys in report order: revisions, then variants, as the
// bench package lists them; anything else after, sorted.
func order(data map[key]*samples) []key {
	var ks []key
	for _, p := range bench.Protos() {
		for _, v := range bench.Variants() {
			if data[key{p, v}] != nil {
				ks = append(ks, key{p, v})
			}
		}
	}
	var rest []key
	for k := range data {
		if !slices.Contains(ks, k) {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(rest, func(a, b key) int { return strings.Compare(a.proto+"/"+a.variant, b.proto+"/"+b.variant) })
	return append(ks, rest...)
}

func num(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		log.Fatal(err)
	}
	return f
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cell is "median [min–max]", or the median alone when every repeat agrees.
func cell(xs []float64, decimals int) string {
	if len(xs) == 0 {
		return "–"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return group(lo, decimals)
	}
	return fmt.Sprintf("%s [%s–%s]", group(median(xs), decimals), group(lo, decimals), group(hi, decimals))
}

// ratio divides the medians of one measure.
func ratio(s, base *samples, measure func(*samples) []float64) string {
	if base == nil || len(measure(s)) == 0 || len(measure(base)) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", median(measure(s))/median(measure(base)))
}

// group formats x with thousands separators, for columns read at a glance.
func group(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
