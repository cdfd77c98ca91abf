package rdd

import (
	"fmt"

	"github.com/sparknet-go/sparknet/data"
)

// ParallelizeSamples distributes a sample set over numPartitions
// partitions (0 means DefaultParallelism): partition p holds samples
// [p*N/numPartitions, (p+1)*N/numPartitions) as a view of s, without
// copying. The result is an RDD of samples.
func (sc *Context) ParallelizeSamples(s *data.Samples, numPartitions int) *RDD {
	if s == nil {
		return sc.failed("ParallelizeSamples", fmt.Errorf("rdd: ParallelizeSamples of nil samples"))
	}
	if err := s.Validate(); err != nil {
		return sc.failed("ParallelizeSamples", fmt.Errorf("rdd: %w", err))
	}
	n, err := sc.partitionsOrDefault("ParallelizeSamples", numPartitions)
	if err != nil {
		return sc.failed("ParallelizeSamples", err)
	}
	return sc.newRDD("ParallelizeSamples", n, true, nil, func(_ *TaskContext, p int) (block, error) {
		i, j := partitionBounds(s.N, n, p)
		return block{Samples: s.Slice(i, j)}, nil
	})
}

// samplesSource reads a sample set eagerly (so that file errors show at
// once) and distributes it.
func (sc *Context) samplesSource(op string, numPartitions int, read func() (*data.Samples, error)) (*RDD, error) {
	if _, err := sc.partitionsOrDefault(op, numPartitions); err != nil {
		return nil, err
	}
	s, err := read()
	if err != nil {
		return nil, err
	}
	return sc.ParallelizeSamples(s, numPartitions).setOp(op), nil
}

// registered reads a data set of samples through package data's
// registry, as Read does, keeping op as the RDD's operation.
func (sc *Context) registered(op, format, path string, o data.ReadOptions, numPartitions int) (*RDD, error) {
	if _, err := sc.partitionsOrDefault(op, numPartitions); err != nil {
		return nil, err
	}
	s, err := data.ReadSamples(format+":"+path, o)
	if err != nil {
		return nil, err
	}
	return sc.ParallelizeSamples(s, numPartitions).setOp(op), nil
}

// split names the split Read takes.
func split(train bool) string {
	if train {
		return "train"
	}
	return "test"
}

// MNIST reads the MNIST training or test set from dir ("" finds the
// files with data.MNISTDir) into an RDD of 1×28×28 byte samples; it is
// ReadWith("mnist:DIR", ...).
func (sc *Context) MNIST(dir string, train bool, numPartitions int) (*RDD, error) {
	if dir == "" {
		d, err := data.MNISTDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return sc.registered("MNIST", "mnist", dir, data.ReadOptions{Split: split(train)}, numPartitions)
}

// IDX reads a pair of IDX files of samples and labels (as MNIST's) into
// an RDD of samples.
func (sc *Context) IDX(imagesPath, labelsPath string, numPartitions int) (*RDD, error) {
	return sc.samplesSource("IDX", numPartitions, func() (*data.Samples, error) {
		return data.ReadMNIST(imagesPath, labelsPath)
	})
}

// CIFAR10 reads the CIFAR-10 training or test batches from dir into an
// RDD of 3×32×32 byte samples.
func (sc *Context) CIFAR10(dir string, train bool, numPartitions int) (*RDD, error) {
	return sc.registered("CIFAR10", "cifar10", dir, data.ReadOptions{Split: split(train)}, numPartitions)
}

// LMDB reads a Caffe LMDB database of Datum records (a folder holding
// data.mdb, as Caffe's convert tools write them) into an RDD of samples,
// in key order; encoded records are decoded as images with o.
func (sc *Context) LMDB(path string, o data.ImageOptions, numPartitions int) (*RDD, error) {
	return sc.registered("LMDB", "lmdb", path, data.ReadOptions{Image: o}, numPartitions)
}

// LevelDB reads a Caffe LevelDB database of Datum records (the folder
// Caffe's convert tools write with --backend=leveldb) into an RDD of
// samples, in key order.
func (sc *Context) LevelDB(path string, o data.ImageOptions, numPartitions int) (*RDD, error) {
	return sc.registered("LevelDB", "leveldb", path, data.ReadOptions{Image: o}, numPartitions)
}

// ImageList reads the images a Caffe image list names ("PATH LABEL"
// lines, paths under root or the list's folder) into an RDD of byte
// samples, in list order.
func (sc *Context) ImageList(list, root string, o data.ImageOptions, numPartitions int) (*RDD, error) {
	return sc.samplesSource("ImageList", numPartitions, func() (*data.Samples, error) {
		return data.ReadImageList(list, root, o)
	})
}

// ImageFolder reads a folder with one subfolder of JPEG or PNG images per
// class into an RDD of byte samples.
func (sc *Context) ImageFolder(dir string, o data.ImageOptions, numPartitions int) (*RDD, error) {
	return sc.registered("ImageFolder", "images", dir, data.ReadOptions{Image: o}, numPartitions)
}

// CSV reads a CSV file of numbers into an RDD of float32 samples of shape
// 1×1×D.
func (sc *Context) CSV(path string, o data.CSVOptions, numPartitions int) (*RDD, error) {
	return sc.registered("CSV", "csv", path, data.ReadOptions{CSV: o}, numPartitions)
}

// TextFile reads a text file (plain or gzip), or a folder of part files
// as SaveAsTextFile and Spark write them, into an RDD of its lines, as
// strings.
func (sc *Context) TextFile(path string, numPartitions int) (*RDD, error) {
	if _, err := sc.partitionsOrDefault("TextFile", numPartitions); err != nil {
		return nil, err
	}
	lines, err := data.ReadLines(path)
	if err != nil {
		return nil, err
	}
	return sc.Parallelize(lines, numPartitions).setOp("TextFile"), nil
}
