package data

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // register JPEG decoding
	_ "image/png"  // register PNG decoding
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// maxImagePixels bounds the width×height an image header may declare
// before it is decoded (64 megapixels, 8192 × 8192).
const maxImagePixels = 1 << 26

// ImageOptions says how images are turned into samples.
type ImageOptions struct {
	// Height and Width resize every image (bilinear, as Caffe's new_height
	// and new_width); 0 and 0 keep the size of the images, which must then
	// all be equal.
	Height, Width int
	// Gray decodes to one luminance channel instead of three.
	Gray bool
	// RGB keeps channels in R, G, B order. By default they are B, G, R as
	// Caffe's OpenCV-based image layers store them, so that Caffe's
	// mean values (such as 104, 117, 123) apply unchanged.
	RGB bool
}

// check reports options whose size is half given or negative.
func (o ImageOptions) check() error {
	if o.Height < 0 || o.Width < 0 || (o.Height == 0) != (o.Width == 0) {
		return fmt.Errorf("data: image size %d×%d: give both height and width, or neither", o.Height, o.Width)
	}
	return nil
}

func (o ImageOptions) channels() int {
	if o.Gray {
		return 1
	}
	return 3
}

// imageExts lists the extensions ReadImageFolder picks up.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true}

// ReadImageFolder reads a folder with one subfolder per class, such as
// train/cat/001.jpg and train/dog/002.png, into byte samples. Classes are
// the subfolder names in sorted order (label k is Classes[k]) and images
// within a class are read in name order. Files not ending in .jpg, .jpeg
// or .png (any case) are skipped.
func ReadImageFolder(dir string, o ImageOptions) (*Samples, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var classes []string
	for _, e := range entries {
		if e.IsDir() {
			classes = append(classes, e.Name())
		}
	}
	sort.Strings(classes)
	if len(classes) == 0 {
		return nil, inFile(dir, fmt.Errorf("no class folders: want one folder per class holding its images"))
	}
	s := &Samples{C: o.channels(), H: o.Height, W: o.Width, Pixels: []uint8{}, Labels: []float32{}, Classes: classes}
	for label, class := range classes {
		files, err := os.ReadDir(filepath.Join(dir, class))
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		names := make([]string, 0, len(files))
		for _, f := range files {
			if !f.IsDir() && imageExts[strings.ToLower(filepath.Ext(f.Name()))] {
				names = append(names, f.Name())
			}
		}
		sort.Strings(names)
		for _, name := range names {
			path := filepath.Join(dir, class, name)
			pix, h, w, err := readImageFile(path, o, s.H, s.W)
			if err != nil {
				return nil, err
			}
			if s.N == 0 {
				s.H, s.W = h, w
			}
			s.Pixels = append(s.Pixels, pix...)
			s.Labels = append(s.Labels, float32(label))
			s.N++
		}
	}
	if s.N == 0 {
		return nil, inFile(dir, fmt.Errorf("no .jpg, .jpeg or .png images in the class folders %s", strings.Join(classes, ", ")))
	}
	return s, nil
}

// ReadImageList reads the images a list file names, as Caffe's ImageData
// layer and convert_imageset do: one image per line, "PATH LABEL" (the
// label after the last space, so paths may contain spaces), the paths
// relative to root (Caffe's root_folder, prepended as given when not
// empty) or else to the list file's folder. Blank lines are skipped.
// All images must end up one size: give o.Height and o.Width to resize.
func ReadImageList(list, root string, o ImageOptions) (*Samples, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	lines, err := ReadLines(list)
	if err != nil {
		return nil, err
	}
	s := &Samples{C: o.channels(), H: o.Height, W: o.Width, Pixels: []uint8{}, Labels: []float32{}}
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		sp := strings.LastIndexAny(line, " \t")
		if sp < 0 {
			return nil, atLine(list, i+1, 0, fmt.Errorf("%w: want \"PATH LABEL\", got %q", ErrFormat, line))
		}
		name, labelText := strings.TrimSpace(line[:sp]), line[sp+1:]
		label, err := strconv.Atoi(labelText)
		if err != nil {
			return nil, atLine(list, i+1, sp+2, fmt.Errorf("%w: label %q is not an integer", ErrFormat, labelText))
		}
		path := name
		switch {
		case root != "":
			path = root + name
		case !filepath.IsAbs(name):
			path = filepath.Join(filepath.Dir(list), name)
		}
		pix, h, w, err := readImageFile(path, o, s.H, s.W)
		if err != nil {
			return nil, atLine(list, i+1, 1, err)
		}
		if s.N == 0 {
			s.H, s.W = h, w
		}
		s.Pixels = append(s.Pixels, pix...)
		s.Labels = append(s.Labels, float32(label))
		s.N++
	}
	if s.N == 0 {
		return nil, inFile(list, fmt.Errorf("%w: the list names no images", ErrFormat))
	}
	return s, nil
}

// ReadImage reads one JPEG or PNG file as a single sample (label 0).
func ReadImage(path string, o ImageOptions) (*Samples, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	pix, h, w, err := readImageFile(path, o, o.Height, o.Width)
	if err != nil {
		return nil, err
	}
	return &Samples{N: 1, C: o.channels(), H: h, W: w, Pixels: pix, Labels: []float32{0}}, nil
}

// readImageFile decodes path to planar bytes. When h and w are non-zero
// the image must end up that size: resized if o asks for a size, else an
// error.
func readImageFile(path string, o ImageOptions, h, w int) ([]uint8, int, int, error) {
	f, _, err := fsio.Open(path)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	pix, ih, iw, err := DecodeImage(f, path, o)
	if err != nil {
		return nil, 0, 0, err
	}
	if h != 0 && o.Height == 0 && (ih != h || iw != w) {
		return nil, 0, 0, inFile(path, fmt.Errorf("image is %d×%d but earlier images are %d×%d: set ImageOptions Height and Width to resize them all", iw, ih, w, h))
	}
	return pix, ih, iw, nil
}

// DecodeImage decodes a JPEG or PNG image from r into planar C×H×W bytes,
// resized to o.Height×o.Width when set. It returns the pixels and the
// resulting height and width. name appears in errors.
func DecodeImage(r io.Reader, name string, o ImageOptions) (pix []uint8, h, w int, err error) {
	defer func() {
		// The standard decoders are fuzzed, but a decoder bug must not take
		// the caller down with it.
		if v := recover(); v != nil {
			pix, h, w, err = nil, 0, 0, inFile(name, fmt.Errorf("%w: image decoder failed: %v", ErrFormat, v))
		}
	}()
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, 0, 0, inFile(name, err)
		}
		rs = bytes.NewReader(b)
	}
	cfg, format, err := image.DecodeConfig(rs)
	if err != nil {
		return nil, 0, 0, inFile(name, fmt.Errorf("%w: not a JPEG or PNG image: %v", ErrFormat, err))
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxImagePixels {
		return nil, 0, 0, inFile(name, fmt.Errorf("%w: %s image declares %d×%d pixels (limit %d)", ErrTooLarge, format, cfg.Width, cfg.Height, maxImagePixels))
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return nil, 0, 0, inFile(name, err)
	}
	img, _, err := image.Decode(rs)
	if err != nil {
		return nil, 0, 0, inFile(name, fmt.Errorf("%w: decoding %s: %v", ErrFormat, format, err))
	}
	pix, h, w = planes(img, o)
	if o.Height > 0 && (h != o.Height || w != o.Width) {
		pix = resizeBilinear(pix, o.channels(), h, w, o.Height, o.Width)
		h, w = o.Height, o.Width
	}
	return pix, h, w, nil
}

// planes converts img to planar bytes: BGR (or RGB) or gray.
func planes(img image.Image, o ImageOptions) ([]uint8, int, int) {
	b := img.Bounds()
	h, w := b.Dy(), b.Dx()
	c := o.channels()
	pix := make([]uint8, c*h*w)
	plane := h * w
	// Plane index of red and blue.
	ri, bi := 2, 0
	if o.RGB {
		ri, bi = 0, 2
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var r, g, bl uint8
			switch m := img.(type) {
			case *image.Gray:
				v := m.Pix[m.PixOffset(b.Min.X+x, b.Min.Y+y)]
				r, g, bl = v, v, v
			case *image.YCbCr:
				yy := m.Y[m.YOffset(b.Min.X+x, b.Min.Y+y)]
				ci := m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl = color.YCbCrToRGB(yy, m.Cb[ci], m.Cr[ci])
			case *image.NRGBA:
				i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl = m.Pix[i], m.Pix[i+1], m.Pix[i+2]
			case *image.RGBA:
				i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl = m.Pix[i], m.Pix[i+1], m.Pix[i+2]
			default:
				n := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				r, g, bl = n.R, n.G, n.B
			}
			i := y*w + x
			if c == 1 {
				pix[i] = gray(r, g, bl)
				continue
			}
			pix[ri*plane+i] = r
			pix[plane+i] = g
			pix[bi*plane+i] = bl
		}
	}
	return pix, h, w
}

// gray is the luminance 0.299 R + 0.587 G + 0.114 B, rounded.
func gray(r, g, b uint8) uint8 {
	return uint8((19595*uint32(r) + 38470*uint32(g) + 7471*uint32(b) + 1<<15) >> 16)
}

// resizeBilinear resizes planar bytes with pixel-centre alignment (the
// convention of OpenCV's INTER_LINEAR, which Caffe uses).
func resizeBilinear(src []uint8, c, h, w, oh, ow int) []uint8 {
	dst := make([]uint8, c*oh*ow)
	sy := float64(h) / float64(oh)
	sx := float64(w) / float64(ow)
	for y := 0; y < oh; y++ {
		fy := (float64(y)+0.5)*sy - 0.5
		y0, dy := splitCoord(fy, h)
		y1 := min(y0+1, h-1)
		for x := 0; x < ow; x++ {
			fx := (float64(x)+0.5)*sx - 0.5
			x0, dx := splitCoord(fx, w)
			x1 := min(x0+1, w-1)
			for ch := 0; ch < c; ch++ {
				p := src[ch*h*w:]
				v := (1-dy)*((1-dx)*float64(p[y0*w+x0])+dx*float64(p[y0*w+x1])) +
					dy*((1-dx)*float64(p[y1*w+x0])+dx*float64(p[y1*w+x1]))
				dst[ch*oh*ow+y*ow+x] = uint8(math.Min(255, math.Max(0, math.Round(v))))
			}
		}
	}
	return dst
}

// splitCoord clamps a source coordinate into [0, n-1] and splits it into
// an integer part and a fraction.
func splitCoord(f float64, n int) (int, float64) {
	if f <= 0 {
		return 0, 0
	}
	i := int(f)
	if i >= n-1 {
		return n - 1, 0
	}
	return i, f - float64(i)
}

func init() {
	mustRegister(Format{
		Name: "images",
		Doc:  "a folder with one subfolder of JPEG or PNG images per class",
		Detect: func(p string) bool {
			return isDir(p) && globAny(p, "*/*.jpg", "*/*.jpeg", "*/*.png", "*/*.JPG", "*/*.JPEG", "*/*.PNG")
		},
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) { return ReadImageFolder(p, o.Image) }),
	})
	mustRegister(Format{
		Name: "imagelist",
		Doc:  `a Caffe image list of "PATH LABEL" lines, paths relative to the list's folder`,
		Read: samplesOf(func(p string, o ReadOptions) (*Samples, error) { return ReadImageList(p, "", o.Image) }),
	})
}
