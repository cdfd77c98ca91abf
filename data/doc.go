// Package data reads data-set files into compact in-memory sample sets and
// turns samples into minibatches the way Caffe's data layers do.
//
// It sits below both the Caffe engine and the RDD package: Caffe's Data
// layer and rdd's sources read files through it, and it imports neither.
//
// # Formats
//
//   - IDX, the format of MNIST and its relatives: any element type (uint8,
//     int8, int16, int32, float32, float64) and any number of dimensions,
//     plain or gzip-compressed (detected by magic bytes). ReadIDXFile,
//     ReadIDX, WriteIDXFile.
//   - MNIST as a pair of IDX files: LoadMNIST, ReadMNIST, and MNISTDir to
//     find the real files on a machine with Go.
//   - CIFAR-10 and CIFAR-100 binary batches: ReadCIFAR10, LoadCIFAR10,
//     ReadCIFAR100.
//   - Image folders with one subfolder per class, JPEG and PNG, resized
//     bilinearly: ReadImageFolder, ReadImage, DecodeImage; and Caffe's
//     image lists ("PATH LABEL" lines): ReadImageList.
//   - Text lines and CSV files of numbers: ReadLines, ReadCSV.
//   - LMDB databases of Caffe Datum records, as Caffe's convert_imageset,
//     convert_mnist_data and convert_cifar_data write them (raw bytes,
//     float_data, or encoded JPEG/PNG): ReadLMDB, and OpenLMDB with
//     ParseDatum for the records one by one. The reader is our own, in
//     pure Go, over the file's pages.
//   - LevelDB databases of the same records (--backend=leveldb):
//     ReadLevelDB, through github.com/syndtr/goleveldb.
//   - Parquet, the columnar format Spark jobs write, through
//     github.com/parquet-go/parquet-go: a file or a folder of part
//     files, as samples (a column of bytes, raw or encoded images, or of
//     number lists, and a label column: ReadParquet) or as rows of any
//     flat table (ReadParquetRows); WriteParquet and WriteParquetRows
//     write files that Spark, pandas and DuckDB read.
//
// # One registry of formats
//
// Every format registers itself, in the file that reads it, under a
// name; Read opens "FORMAT:PATH" (or a bare path whose format is
// detected) and returns a Dataset of samples or of rows:
//
//	d, err := data.Read("mnist:/data/mnist", data.ReadOptions{Split: "test"})
//	d, err = data.Read("parquet:out/train", data.ReadOptions{})
//
// The formats are mnist, cifar10, lmdb, leveldb, images (one folder per
// class), imagelist (Caffe's image lists), csv, parquet and text; Formats
// lists them, RegisterFormat adds one. Caffe's Data layer and rdd's
// sc.Read open data sets through this registry.
//
// Every reader returns an *Error naming the file and the byte offset,
// record or line of a problem, wrapping ErrTruncated, ErrFormat or
// ErrTooLarge. Declared sizes are checked against the file size before
// anything is allocated, and on streams of unknown length buffers grow
// only as data arrives, so truncated or corrupt files cannot make a
// reader panic or allocate gigabytes. Parquet metadata (the footer and
// every page header) is decoded and checked before the library reads the
// file, and no file may claim more than 1100 decoded bytes or values per
// byte it holds.
//
// # Samples
//
// A *Samples holds N samples of shape C×H×W, as bytes or float32, with
// their labels:
//
//	dir, err := data.MNISTDir()
//	train, err := data.LoadMNIST(dir, true) // 60000 samples of 1×28×28 bytes
//	fmt.Println(train.N, train.C, train.H, train.W, train.Labels[0])
//
// Slice makes views without copying; Subset and Concat copy.
//
// # Transforms and minibatches
//
// Transform mirrors Caffe's TransformationParameter: each value becomes
// (pixel - mean) * scale, with optional square crops (random in training,
// centred in testing) and random mirroring. A Batcher fills a caller's
// buffers with minibatches, allocating nothing per batch:
//
//	b, err := data.NewBatcher(train, data.BatchOptions{
//		Size:      64,
//		Order:     data.Shuffle, // or Sequential, RandomWindows
//		Seed:      1,
//		Transform: data.Transform{Scale: 1.0 / 256},
//	})
//	x := make([]float32, b.DataLen())
//	y := make([]float32, b.Size())
//	for i := 0; i < 100; i++ {
//		if err := b.Next(x, y); err != nil {
//			return err
//		}
//		// x holds 64×1×28×28 values, y their labels.
//	}
//
// Samples.CopyRange and Samples.CopyIndices do the same for an explicit
// range or index list.
package data
