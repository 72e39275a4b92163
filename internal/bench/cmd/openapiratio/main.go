// Command openapiratio measures, side by side in one process, what
// registering an OpenAPI document with mcp/openapi takes against what
// kin-openapi takes only to load it, alternating the two for -repeats
// rounds, and prints each round and the ratio of the fastest of each
// (the best of several discounts a shared machine's other work; CPU time
// is printed too, the figure least moved by it).
//
//	openapiratio -spec api.github.com.json [-repeats 5]
//
// .ci/openapi-github.sh fetches GitHub's document and runs it.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/mcpdual/mcpdual/internal/bench"
)

func main() {
	specPath := flag.String("spec", "", "the OpenAPI document (JSON or YAML)")
	repeats := flag.Int("repeats", 5, "rounds, 1..50")
	flag.Parse()
	if *specPath == "" || *repeats < 1 || *repeats > 50 {
		flag.Usage()
		os.Exit(2)
	}
	spec, err := os.ReadFile(*specPath)
	if err != nil {
		log.Fatal(err)
	}
	var kin, reg, kinCPU, regCPU []time.Duration
	for r := range *repeats {
		t, err := bench.MeasureOpenAPI(spec)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("round %d: kin-openapi load %d ms (cpu %d ms), mcp/openapi Register %d ms (cpu %d ms), %d paths, %d tools\n",
			r+1, t.KinWall.Milliseconds(), t.KinCPU.Milliseconds(), t.RegisterWall.Milliseconds(), t.RegisterCPU.Milliseconds(), t.Paths, t.Tools)
		kin, reg = append(kin, t.KinWall), append(reg, t.RegisterWall)
		kinCPU, regCPU = append(kinCPU, t.KinCPU), append(regCPU, t.RegisterCPU)
	}
	k, g := slices.Min(kin), slices.Min(reg)
	fmt.Printf("ratio=%.2f register_ms=%d kin_load_ms=%d cpu_ratio=%.2f (fastest of %d rounds each)\n",
		float64(g)/float64(k), g.Milliseconds(), k.Milliseconds(),
		float64(slices.Min(regCPU))/float64(slices.Min(kinCPU)), *repeats)
}
