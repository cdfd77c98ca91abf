package tool

import (
	"flag"
	"fmt"
	"io"

	"github.com/sparknet-go/sparknet/caffe"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

func init() {
	register(&command{
		name:    "upgrade",
		summary: "rewrite a legacy (V0/V1) net, solver or .caffemodel in the current format",
		usage:   "--model=NET.prototxt | --solver=SOLVER.prototxt | --weights=IN.caffemodel --output=OUT.caffemodel",
		run:     runUpgrade,
	})
}

func runUpgrade(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	model := fs.String("model", "", "a net definition (.prototxt) to print upgraded")
	solver := fs.String("solver", "", "a solver definition (.prototxt) to print upgraded (inline nets included)")
	weights := fs.String("weights", "", "a binary net (.caffemodel) to upgrade into --output")
	output := fs.String("output", "", "where to write the result (default: standard output; required for --weights)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := 0
	for _, s := range []string{*model, *solver, *weights} {
		if s != "" {
			given++
		}
	}
	if given != 1 {
		return usageErrorf("give exactly one of --model, --solver and --weights")
	}
	var text string
	switch {
	case *weights != "":
		if *output == "" {
			return usageErrorf("--weights needs --output for the binary result")
		}
		np, err := caffe.ReadCaffemodel(*weights)
		if err != nil {
			return err
		}
		return caffe.WriteCaffemodel(*output, np)
	case *model != "":
		np, err := caffe.LoadNetParameter(*model)
		if err != nil {
			return err
		}
		text = caffe.FormatText(np)
	default:
		src, err := fsio.ReadFile(*solver, fsio.TextLimit)
		if err != nil {
			return err
		}
		sp, err := caffe.ParseSolverParameter(*solver, src)
		if err != nil {
			return err
		}
		text = caffe.FormatText(sp)
	}
	if *output == "" {
		_, err := fmt.Fprint(stdout, text)
		return err
	}
	return fsio.WriteFile(*output, []byte(text))
}
