package tool

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sparknet-go/sparknet/caffe"
)

func init() {
	register(&command{
		name:    "mean",
		summary: "compute a data set's mean image into a .binaryproto, as compute_image_mean",
		usage:   "--source=SOURCE --output=mean.binaryproto [--split=train]",
		run:     runMean,
	})
}

func runMean(fs *flag.FlagSet, args []string, stdout, _ io.Writer) error {
	source := fs.String("source", "", "the data set, as a Data layer's source: an LMDB or LevelDB folder, or KIND:PATH (e.g. cifar10:DIR)")
	output := fs.String("output", "", "the mean file to write (.binaryproto), for transform_param.mean_file")
	split := fs.String("split", "train", "for data sets with two splits (mnist, cifar10): train or test")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *source == "" || *output == "" {
		return usageErrorf("--source and --output are required")
	}
	if *split != "train" && *split != "test" {
		return usageErrorf("--split=%q: want train or test", *split)
	}
	if fi, err := os.Stat(*output); err == nil && fi.IsDir() {
		return usageErrorf("--output=%s is a folder; name the file to write, such as %s", *output, filepath.Join(*output, "mean.binaryproto"))
	}
	s, err := caffe.LoadDataSource(*source, *split == "train")
	if err != nil {
		return err
	}
	mean, err := caffe.ImageMean(s)
	if err != nil {
		return err
	}
	if err := caffe.WriteBlobProto(*output, mean); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mean of %d images of %d×%d×%d written to %s\n", s.N, s.C, s.H, s.W, *output)
	plane := s.H * s.W
	for c := 0; c < s.C; c++ {
		var sum float64
		for _, v := range mean.Data[c*plane : (c+1)*plane] {
			sum += float64(v)
		}
		fmt.Fprintf(stdout, "mean_value channel [%d]: %g\n", c, sum/float64(plane))
	}
	return nil
}
