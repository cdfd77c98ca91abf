package tool

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
)

func init() {
	register(&command{
		name:    "test",
		summary: "score a trained net: the mean of its outputs over --iterations batches, as caffe test",
		usage:   "--model=NET.prototxt --weights=W.caffemodel [--iterations=50] [--data=KIND=DIR] [--phase=TEST] [--level=N] [--stage=a,b] [--threads=N]",
		run:     runTest,
	})
}

func runTest(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	var nf netFlags
	nf.register(fs, "TEST")
	weights := fs.String("weights", "", "comma-separated .caffemodel files with the trained weights")
	iterations := fs.Int("iterations", 50, "the number of batches to run")
	threads := registerThreads(fs)
	quiet := fs.Bool("quiet", false, "do not print every batch's outputs")
	var data dataFlag
	fs.Var(&data, "data", dataUsage)
	shapes := shapeFlags{}
	fs.Var(shapes, "input-shape", "the shape of an input blob, BLOB=D1,D2,... (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *weights == "" {
		return usageErrorf("--weights is required: test scores trained weights")
	}
	if *iterations <= 0 {
		return usageErrorf("--iterations must be positive, got %d", *iterations)
	}
	net, err := nf.build(data.source, shapes, int(*threads), 0)
	if err != nil {
		return err
	}
	kept, err := loadWeights(net, *weights, nil)
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "sparknet test: warning: %s has no weights for %s; they keep the values their fillers gave\n", *weights, strings.Join(kept, ", "))
	}
	ctx, stop := interruptible()
	defer stop()
	fmt.Fprintf(stderr, "Running for %d iterations.\n", *iterations)
	var sums []float64
	var names []string
	var weightsOf []float32
	var loss float64
	for i := 0; i < *iterations; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := net.Forward()
		if err != nil {
			return err
		}
		loss += float64(l)
		k := 0
		for _, name := range net.Outputs() {
			for _, v := range net.Blob(name).DataSlice() {
				if i == 0 {
					sums = append(sums, 0)
					names = append(names, name)
					weightsOf = append(weightsOf, lossWeight(net, name))
				}
				if k < len(sums) {
					sums[k] += float64(v)
				}
				if !*quiet {
					fmt.Fprintf(stderr, "Batch %d, %s = %s\n", i, name, formatValue(float64(v)))
				}
				k++
			}
		}
	}
	n := float64(*iterations)
	fmt.Fprintf(stdout, "Loss: %s\n", formatValue(loss/n))
	for k, s := range sums {
		fmt.Fprintln(stdout, outputLine(names[k], s/n, weightsOf[k]))
	}
	return nil
}

// lossWeight returns the loss weight of the net's blob called name.
func lossWeight(net *caffe.Net, name string) float32 {
	for _, ld := range net.Def().Layers {
		for j, t := range ld.Tops {
			if t == name && ld.LossWeights[j] != 0 {
				return ld.LossWeights[j]
			}
		}
	}
	return 0
}
