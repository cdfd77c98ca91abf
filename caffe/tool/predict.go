package tool

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/ndarray"
)

func init() {
	register(&command{
		name:    "predict",
		summary: "run the samples of a .npy array through a trained net and write its outputs as .npy or .npz",
		usage:   "--model=NET.prototxt --weights=W.caffemodel --input=x.npy --output=y.npy|y.npz [--transform] [--blobs=a,b] [--batch=N]",
		run:     runPredict,
	})
}

func runPredict(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	model := fs.String("model", "", "the net definition: a deploy .prototxt, or a train_val one whose data layers become inputs")
	weights := fs.String("weights", "", "comma-separated .caffemodel files with the trained weights")
	input := fs.String("input", "", "the samples: a .npy array (or an .npz holding one) of N×C×H×W for an image net")
	output := fs.String("output", "", "where to write the outputs: a .npy for one blob, an .npz for several")
	transform := fs.Bool("transform", false, "apply the data layer's transform_param (mean, scale, centre crop) to the samples first: give raw pixels")
	blobs := fs.String("blobs", "", "comma-separated blobs to write instead of the net's outputs (features such as fc7)")
	batch := fs.Int("batch", 0, "samples per forward pass (0: the batch size of the net's input)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *model == "" || *input == "" || *output == "":
		return usageErrorf("--model, --input and --output are required")
	case *batch < 0:
		return usageErrorf("--batch must be 0 or positive, got %d", *batch)
	}
	if fi, err := os.Stat(*output); err == nil && fi.IsDir() {
		return usageErrorf("--output=%s is a folder; name the file to write, such as %s", *output, filepath.Join(*output, "y.npy"))
	}
	npz := strings.EqualFold(filepath.Ext(*output), ".npz")
	if !npz && !strings.EqualFold(filepath.Ext(*output), ".npy") {
		return usageErrorf("--output=%s: name a .npy file (one blob) or an .npz file (several)", *output)
	}
	x, err := readArray(*input)
	if err != nil {
		return err
	}
	net, err := caffe.LoadNet(*model, *weights)
	if err != nil {
		return err
	}
	if *weights == "" && net.Weights().Len() > 0 {
		return usageErrorf("--weights is required: without trained weights the outputs of %s come from its fillers' random values (layers with parameters: %s)",
			*model, shortNames(net.Weights().Layers()))
	}
	opts := caffe.PredictOptions{Transform: *transform, Batch: *batch}
	if *blobs != "" {
		opts.Outputs = strings.Split(*blobs, ",")
	}
	names := opts.Outputs
	if names == nil {
		names = net.Outputs()
	}
	if !npz && len(names) != 1 {
		return usageErrorf("net %q gives %d blobs (%s): name one with --blobs, or write them all to an .npz", net.Name(), len(names), strings.Join(names, ", "))
	}
	out, err := net.PredictWith(x, opts)
	if err != nil {
		return fmt.Errorf("predicting the samples of %s with %s: %w", *input, *model, err)
	}
	if npz {
		err = ndarray.SaveNpz(*output, out, false)
	} else {
		err = ndarray.Save(*output, out[names[0]])
	}
	if err != nil {
		return err
	}
	sorted := make([]string, 0, len(out))
	for name := range out {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		fmt.Fprintf(stdout, "%s %s\n", name, caffe.Shape(out[name].Shape()))
	}
	fmt.Fprintf(stdout, "predicted %d samples with %s; wrote %s\n", x.Shape()[0], net.Name(), *output)
	return nil
}

// readArray reads the samples: a .npy file, or an .npz holding one array.
func readArray(path string) (*ndarray.Array, error) {
	if !strings.EqualFold(filepath.Ext(path), ".npz") {
		return ndarray.Load(path)
	}
	arrays, err := ndarray.LoadNpz(path)
	if err != nil {
		return nil, err
	}
	if len(arrays) != 1 {
		names := make([]string, 0, len(arrays))
		for n := range arrays {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s holds %d arrays (%s); give a .npy, or an .npz with one array", path, len(arrays), strings.Join(names, ", "))
	}
	for _, a := range arrays {
		return a, nil
	}
	return nil, nil
}

// shortNames lists up to five names, then how many more there are.
func shortNames(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
}
