// Command summarize reads what run.sh collected (the lines of go test
// -bench -benchmem and the RESULT lines of cmd/load) and prints the
// report in Markdown: the ratios to the floor first, then the in-process
// table, the loopback table per worker count, and the cost of growing work
// (BenchmarkScale). Cells are the median of the repeats with [min–max]
// when they differ. Ratios divide the best repeat of each side (the least
// time, CPU or p99, the most req/s), with the medians' ratio beside each
// ratio to the floor in the first table: on a shared machine a slow spell
// only ever adds time, so the best repeats move less from run to run than
// a median of three, which moves whenever two of one variant's repeats
// fall in slow spells.
//
//	summarize results.txt   (or the lines on stdin)
//
// Other lines are ignored, so a whole log can be fed to it. It reads
// numbers and prints them; nothing here is a pass or fail.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
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

// benchLine matches "Benchmark<Name>/<sub…>[-N] iters ns B allocs". The
// variant or case comes last in every name, so the optional -N
// (GOMAXPROCS) can only be its suffix.
var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+[\d.]+ MB/s)?\s+([\d.]+) B/op\s+([\d.]+) allocs/op`)

// inproc is one benchmark's samples, one per repeat.
type inproc struct{ us, bytes, allocs []float64 }

type wireKey struct {
	proto, variant string
	workers        int
}

type wire struct{ rps, p50, p99, cpu, rss []float64 }

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
	if err := report(os.Stdout, in); err != nil {
		log.Fatal(err)
	}
}

// report reads the collected lines from in and writes the report to out.
func report(out io.Writer, in io.Reader) error {
	benches := map[string]*inproc{}
	var benchOrder []string
	wires := map[wireKey]*wire{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if m := benchLine.FindStringSubmatch(line); m != nil {
			b := benches[m[1]]
			if b == nil {
				b = &inproc{}
				benches[m[1]] = b
				benchOrder = append(benchOrder, m[1])
			}
			b.us = append(b.us, num(m[2])/1e3)
			b.bytes = append(b.bytes, num(m[3]))
			b.allocs = append(b.allocs, num(m[4]))
		} else if js, ok := strings.CutPrefix(line, "RESULT "); ok {
			var r bench.LoadResult
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				return fmt.Errorf("%q: %v", line, err)
			}
			k := wireKey{r.Proto, r.Label, r.Workers}
			if wires[k] == nil {
				wires[k] = &wire{}
			}
			w := wires[k]
			w.rps, w.p50, w.p99 = append(w.rps, r.RPS), append(w.p50, r.P50Us), append(w.p99, r.P99Us)
			if r.CPUUsPerReq > 0 {
				w.cpu = append(w.cpu, r.CPUUsPerReq)
			}
			if r.PeakRSSKB > 0 {
				w.rss = append(w.rss, float64(r.PeakRSSKB)/1024)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(benches) == 0 && len(wires) == 0 {
		return errors.New("no benchmark or RESULT lines in the input")
	}
	call := func(proto, v string) *inproc { return benches["ToolsCall/"+proto+"/"+v] }
	variants := append(bench.Variants(), bench.TSNode)
	var workers []int
	for k := range wires {
		if !slices.Contains(workers, k.workers) {
			workers = append(workers, k.workers)
		}
	}
	slices.Sort(workers)

	fmt.Fprintln(out, "### Ratios to the floor")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| measure | "+strings.Join(bench.Protos(), " | ")+" |")
	fmt.Fprintln(out, "|---|"+strings.Repeat("--:|", len(bench.Protos())))
	row := func(name string, f func(proto string) string) {
		cells := []string{name}
		for _, p := range bench.Protos() {
			cells = append(cells, f(p))
		}
		fmt.Fprintln(out, "| "+strings.Join(cells, " | ")+" |")
	}
	for _, v := range []string{bench.MCPDual, bench.MCPDualFunc} {
		row("in process, "+v+" ÷ floor: time (allocations)", func(p string) string {
			s, f := call(p, v), call(p, bench.Floor)
			if s == nil || f == nil {
				return "–"
			}
			a, b := best(s.us, lower), best(f.us, lower)
			return fmt.Sprintf("%.2f× (%s vs %s µs; %s vs %s; medians %.2f×)", a/b, group(a, 1), group(b, 1),
				group(median(s.allocs), 0), group(median(f.allocs), 0), median(s.us)/median(f.us))
		})
	}
	for _, n := range workers {
		for _, m := range []struct {
			name string
			get  func(*wire) []float64
			dir  direction
		}{{"server CPU per request", func(w *wire) []float64 { return w.cpu }, lower},
			{"req/s", func(w *wire) []float64 { return w.rps }, higher},
			{"p99", func(w *wire) []float64 { return w.p99 }, lower}} {
			row(fmt.Sprintf("HTTP %d workers, mcpdual ÷ floor: %s", n, m.name), func(p string) string {
				s, f := wires[wireKey{p, bench.MCPDual, n}], wires[wireKey{p, bench.Floor, n}]
				if s == nil || f == nil || len(m.get(s)) == 0 || len(m.get(f)) == 0 {
					return "–"
				}
				xs, ys := m.get(s), m.get(f)
				a, b := best(xs, m.dir), best(ys, m.dir)
				return fmt.Sprintf("%.2f× (%s vs %s; medians %.2f×)", a/b, group(a, 1), group(b, 1), median(xs)/median(ys))
			})
		}
		row(fmt.Sprintf("HTTP %d workers, server CPU per request, each repeat ÷ the floor's beside it: mcpdual / mcpdual-func", n), func(p string) string {
			f := wires[wireKey{p, bench.Floor, n}]
			var parts []string
			for _, v := range []string{bench.MCPDual, bench.MCPDualFunc} {
				if s := wires[wireKey{p, v, n}]; s != nil && f != nil {
					parts = append(parts, paired(s.cpu, f.cpu))
				} else {
					parts = append(parts, "–")
				}
			}
			return strings.Join(parts, " / ")
		})
		row(fmt.Sprintf("HTTP %d workers, req/s: mcpdual ÷ gosdk / mcpgo / ts-node", n), func(p string) string {
			d := wires[wireKey{p, bench.MCPDual, n}]
			if d == nil {
				return "–"
			}
			var parts []string
			for _, v := range []string{bench.GoSDK, bench.MCPGo, bench.TSNode} {
				if o := wires[wireKey{p, v, n}]; o != nil {
					parts = append(parts, fmt.Sprintf("%.1f×", best(d.rps, higher)/best(o.rps, higher)))
				} else {
					parts = append(parts, "–")
				}
			}
			return strings.Join(parts, " / ")
		})
	}

	fmt.Fprintln(out)
	fmt.Fprintln(out, "### In process (one tools/call of echo, server side only)")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| protocol | variant | µs/op | B/op | allocs/op | µs/op ÷ floor | allocs − floor |")
	fmt.Fprintln(out, "|---|---|--:|--:|--:|--:|--:|")
	for _, p := range bench.Protos() {
		f := call(p, bench.Floor)
		for _, v := range variants {
			s := call(p, v)
			if s == nil {
				continue
			}
			fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", p, v, cell(s.us, 1), cell(s.bytes, 0), cell(s.allocs, 0),
				ratio(s.us, f, func(b *inproc) []float64 { return b.us }, lower), diff(s.allocs, f))
		}
	}

	for _, n := range workers {
		fmt.Fprintln(out)
		fmt.Fprintf(out, "### Loopback HTTP, %d workers (server on one pinned core)\n\n", n)
		fmt.Fprintln(out, "| protocol | variant | req/s | p50 µs | p99 µs | server CPU µs/req | peak RSS MB | CPU ÷ floor | req/s ÷ floor |")
		fmt.Fprintln(out, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, p := range bench.Protos() {
			f := wires[wireKey{p, bench.Floor, n}]
			for _, v := range variants {
				w := wires[wireKey{p, v, n}]
				if w == nil {
					continue
				}
				fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, v, cell(w.rps, 0), cell(w.p50, 0), cell(w.p99, 0),
					cell(w.cpu, 1), cell(w.rss, 0), ratio(w.cpu, f, func(w *wire) []float64 { return w.cpu }, lower),
					ratio(w.rps, f, func(w *wire) []float64 { return w.rps }, higher))
			}
		}
	}

	var scale []string
	for _, name := range benchOrder {
		if strings.HasPrefix(name, "Scale") {
			scale = append(scale, name)
		}
	}
	if len(scale) > 0 {
		fmt.Fprintln(out)
		fmt.Fprintln(out, "### How cost grows with the work (mcpdual, in process)")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "| case | µs/op | B/op | allocs/op |")
		fmt.Fprintln(out, "|---|--:|--:|--:|")
		for _, name := range scale {
			s := benches[name]
			fmt.Fprintf(out, "| %s | %s | %s | %s |\n", strings.TrimPrefix(name, "Scale/"), cell(s.us, 1), cell(s.bytes, 0), cell(s.allocs, 0))
		}
	}
	return nil
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
	if group(lo, decimals) == group(hi, decimals) {
		return group(lo, decimals)
	}
	return fmt.Sprintf("%s [%s–%s]", group(median(xs), decimals), group(lo, decimals), group(hi, decimals))
}

// direction says which end of a measure is the better one.
type direction bool

const (
	lower  direction = false // time, CPU, latency
	higher direction = true  // requests per second
)

// best is the best of the repeats: the least, or for a measure where more
// is better the most.
func best(xs []float64, d direction) float64 {
	if d == higher {
		return slices.Max(xs)
	}
	return slices.Min(xs)
}

// ratio is xs's best repeat over base's, "–" when either has none.
func ratio[T any](xs []float64, base *T, measure func(*T) []float64, d direction) string {
	if base == nil || len(xs) == 0 || len(measure(base)) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", best(xs, d)/best(measure(base), d))
}

// paired divides each repeat of xs by the same repeat of base, which
// run.sh runs next to it, and shows those ratios as a cell: a slow spell
// that spans both runs of a pair leaves its ratio alone, where it would
// move a ratio of medians or of best repeats taken minutes apart.
func paired(xs, base []float64) string {
	n := min(len(xs), len(base))
	rs := make([]float64, n)
	for i := range n {
		rs[i] = xs[i] / base[i]
	}
	return cell(rs, 2)
}

func diff(allocs []float64, base *inproc) string {
	if base == nil || len(allocs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.0f", median(allocs)-median(base.allocs))
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
