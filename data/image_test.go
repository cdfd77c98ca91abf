package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testImage returns a w×h image whose pixel (x, y) is (10x+y, 100+x, 200-y).
func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(10*x + y), uint8(100 + x), uint8(200 - y), 255})
		}
	}
	return img
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeImageChannels(t *testing.T) {
	const w, h = 5, 4
	img := testImage(w, h)
	var b bytes.Buffer
	png.Encode(&b, img)
	tests := []struct {
		name string
		o    ImageOptions
		want func(c, x, y int) uint8
		c    int
	}{
		{"BGR", ImageOptions{}, func(c, x, y int) uint8 {
			p := img.NRGBAAt(x, y)
			return []uint8{p.B, p.G, p.R}[c]
		}, 3},
		{"RGB", ImageOptions{RGB: true}, func(c, x, y int) uint8 {
			p := img.NRGBAAt(x, y)
			return []uint8{p.R, p.G, p.B}[c]
		}, 3},
		{"gray", ImageOptions{Gray: true}, func(_, x, y int) uint8 {
			p := img.NRGBAAt(x, y)
			return uint8(math.Round(0.299*float64(p.R) + 0.587*float64(p.G) + 0.114*float64(p.B)))
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pix, gh, gw, err := DecodeImage(bytes.NewReader(b.Bytes()), "t.png", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if gh != h || gw != w || len(pix) != tc.c*h*w {
				t.Fatalf("got %d×%d with %d values", gw, gh, len(pix))
			}
			for c := 0; c < tc.c; c++ {
				for y := 0; y < h; y++ {
					for x := 0; x < w; x++ {
						if got, want := pix[(c*h+y)*w+x], tc.want(c, x, y); got != want {
							t.Fatalf("channel %d (%d, %d) = %d, want %d", c, x, y, got, want)
						}
					}
				}
			}
		})
	}
}

func TestResizeBilinear(t *testing.T) {
	// Halving averages each 2×2 block (sampling points fall midway).
	src := make([]uint8, 2*4*6)
	for i := range src {
		src[i] = uint8(i * 5)
	}
	got := resizeBilinear(src, 2, 4, 6, 2, 3)
	for c := 0; c < 2; c++ {
		for y := 0; y < 2; y++ {
			for x := 0; x < 3; x++ {
				p := func(yy, xx int) float64 { return float64(src[(c*4+yy)*6+xx]) }
				want := uint8(math.Round((p(2*y, 2*x) + p(2*y, 2*x+1) + p(2*y+1, 2*x) + p(2*y+1, 2*x+1)) / 4))
				if g := got[(c*2+y)*3+x]; g != want {
					t.Errorf("(%d, %d, %d) = %d, want %d", c, y, x, g, want)
				}
			}
		}
	}
	// Same size is the identity; a constant image stays constant.
	if same := resizeBilinear(src, 2, 4, 6, 4, 6); !bytes.Equal(same, src) {
		t.Error("resize to the same size changed the image")
	}
	flat := bytes.Repeat([]byte{77}, 3*5*7)
	for _, v := range resizeBilinear(flat, 3, 5, 7, 11, 2) {
		if v != 77 {
			t.Fatalf("constant image resized to a value %d", v)
		}
	}
}

func TestReadImageFolder(t *testing.T) {
	dir := t.TempDir()
	for _, class := range []string{"dog", "cat"} {
		os.Mkdir(filepath.Join(dir, class), 0o755)
	}
	writePNG(t, filepath.Join(dir, "cat", "b.png"), testImage(6, 4))
	writePNG(t, filepath.Join(dir, "cat", "a.PNG"), testImage(6, 4))
	var jb bytes.Buffer
	jpeg.Encode(&jb, testImage(6, 4), &jpeg.Options{Quality: 95})
	os.WriteFile(filepath.Join(dir, "dog", "x.jpg"), jb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "dog", "notes.txt"), []byte("not an image"), 0o644)

	s, err := ReadImageFolder(dir, ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 3 || s.C != 3 || s.H != 4 || s.W != 6 {
		t.Fatalf("got %v", s)
	}
	if strings.Join(s.Classes, ",") != "cat,dog" || !equalFloats(s.Labels, []float32{0, 0, 1}) {
		t.Errorf("classes %v labels %v", s.Classes, s.Labels)
	}
	// JPEG is lossy: the decoded colours stay near the originals.
	orig, _, _, _ := DecodeImage(bytes.NewReader(mustPNG(testImage(6, 4))), "p", ImageOptions{})
	var worst int
	for i, v := range s.Pixels[2*s.Dim():] {
		worst = max(worst, absInt(int(v)-int(orig[i])))
	}
	if worst > 30 {
		t.Errorf("JPEG pixels differ from the PNG's by up to %d", worst)
	}

	resized, err := ReadImageFolder(dir, ImageOptions{Height: 8, Width: 3, Gray: true})
	if err != nil {
		t.Fatal(err)
	}
	if resized.N != 3 || resized.C != 1 || resized.H != 8 || resized.W != 3 {
		t.Errorf("resized: got %v", resized)
	}

	// Mixed sizes need a resize.
	writePNG(t, filepath.Join(dir, "dog", "y.png"), testImage(5, 4))
	if _, err := ReadImageFolder(dir, ImageOptions{}); err == nil || !strings.Contains(err.Error(), "y.png") {
		t.Errorf("mixed sizes: error %v, want one naming y.png", err)
	}
	// A corrupt image is named.
	os.WriteFile(filepath.Join(dir, "dog", "z.png"), []byte("\x89PNG\r\n\x1a\nbroken"), 0o644)
	_, err = ReadImageFolder(dir, ImageOptions{Height: 4, Width: 4})
	if err == nil || !strings.Contains(err.Error(), "z.png") || !errors.Is(err, ErrFormat) {
		t.Errorf("corrupt image: error %v", err)
	}
}

func TestReadImageFolderErrors(t *testing.T) {
	empty := t.TempDir()
	noImages := t.TempDir()
	os.Mkdir(filepath.Join(noImages, "a"), 0o755)
	tests := []struct {
		name string
		dir  string
		o    ImageOptions
		msg  string
	}{
		{"no classes", empty, ImageOptions{}, "no class folders"},
		{"no images", noImages, ImageOptions{}, "no .jpg"},
		{"half a size", noImages, ImageOptions{Height: 3}, "height and width"},
		{"missing", filepath.Join(empty, "nope"), ImageOptions{}, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadImageFolder(tc.dir, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
}

func mustPNG(img image.Image) []byte {
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestDecodeImageLimits(t *testing.T) {
	// A PNG whose header claims 100000×100000 pixels is refused before
	// decoding.
	raw := mustPNG(testImage(1, 1))
	// IHDR data starts at byte 16: width, height (big endian), then 5
	// bytes, then the chunk's CRC over type and data.
	binary.BigEndian.PutUint32(raw[16:], 100000)
	binary.BigEndian.PutUint32(raw[20:], 100000)
	binary.BigEndian.PutUint32(raw[29:], crc32.ChecksumIEEE(raw[12:29]))
	_, _, _, err := DecodeImage(bytes.NewReader(raw), "huge.png", ImageOptions{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "huge.png") {
		t.Errorf("error %v, want ErrTooLarge naming the file", err)
	}
	// Readers that cannot seek work too.
	pix, h, w, err := DecodeImage(io.MultiReader(bytes.NewReader(mustPNG(testImage(3, 2)))), "s.png", ImageOptions{Gray: true})
	if err != nil || h != 2 || w != 3 || len(pix) != 6 {
		t.Errorf("from a plain reader: %d×%d %v, %v", w, h, pix, err)
	}
	path := filepath.Join(t.TempDir(), "one.png")
	writePNG(t, path, testImage(4, 3))
	s, err := ReadImage(path, ImageOptions{Height: 6, Width: 8})
	if err != nil || s.N != 1 || s.C != 3 || s.H != 6 || s.W != 8 {
		t.Errorf("ReadImage: %v, %v", s, err)
	}
}

// TestReadImageList reads a Caffe image list: paths with spaces, labels
// after the last space, paths relative to the list or under a root.
func TestReadImageList(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "img"), 0o755)
	writePNG(t, filepath.Join(dir, "img", "a b.png"), testImage(5, 4))
	writePNG(t, filepath.Join(dir, "img", "c.png"), testImage(5, 4))
	list := filepath.Join(dir, "list.txt")
	os.WriteFile(list, []byte("img/a b.png 3\n\nimg/c.png 7\n"), 0o644)
	s, err := ReadImageList(list, "", ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 2 || s.C != 3 || s.H != 4 || s.W != 5 || s.Labels[0] != 3 || s.Labels[1] != 7 {
		t.Fatalf("got %d samples %d×%d×%d labels %v", s.N, s.C, s.H, s.W, s.Labels)
	}
	// B, G, R planes: pixel (x=2, y=1) of the first image.
	if b, g, r := s.Pixels[0*20+1*5+2], s.Pixels[1*20+1*5+2], s.Pixels[2*20+1*5+2]; r != 21 || g != 102 || b != 199 {
		t.Errorf("pixel (2, 1) = B %d G %d R %d, want 199 102 21", b, g, r)
	}
	// A root folder is prepended as given; gray and resized.
	os.WriteFile(list, []byte("a b.png 1\n"), 0o644)
	s, err = ReadImageList(list, filepath.Join(dir, "img")+"/", ImageOptions{Height: 2, Width: 3, Gray: true})
	if err != nil || s.N != 1 || s.C != 1 || s.H != 2 || s.W != 3 {
		t.Fatalf("root and resize: %v, %v", s, err)
	}
	for name, content := range map[string]string{
		"no label":      "img/c.png\n",
		"bad label":     "img/c.png x\n",
		"missing image": "img/none.png 1\n",
		"empty":         "\n",
	} {
		os.WriteFile(list, []byte(content), 0o644)
		if _, err := ReadImageList(list, "", ImageOptions{}); err == nil || !strings.Contains(err.Error(), "list.txt") {
			t.Errorf("%s: error %v, want one naming the list", name, err)
		}
	}
}
