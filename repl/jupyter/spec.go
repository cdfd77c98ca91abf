package jupyter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

// KernelSpec is a kernelspec's kernel.json: how Jupyter starts a kernel
// and what it calls it.
type KernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode,omitempty"` // "signal" or "message"
	Env           map[string]string `json:"env,omitempty"`
	Metadata      map[string]any    `json:"metadata,omitempty"`
}

// KernelsDir returns the folder of kernelspecs that Jupyter searches for
// an installation: for the user ($JUPYTER_DATA_DIR/kernels, or
// ~/.local/share/jupyter/kernels), under a prefix (PREFIX/share/jupyter/kernels),
// or system-wide (/usr/local/share/jupyter/kernels).
func KernelsDir(user bool, prefix string) (string, error) {
	switch {
	case prefix != "":
		return filepath.Join(prefix, "share", "jupyter", "kernels"), nil
	case user:
		if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
			return filepath.Join(d, "kernels"), nil
		}
		if d := os.Getenv("XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, "jupyter", "kernels"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("jupyter: no home folder for --user: %w", err)
		}
		return filepath.Join(home, ".local", "share", "jupyter", "kernels"), nil
	}
	return "/usr/local/share/jupyter/kernels", nil
}

// Install writes the kernelspec named name into dir (see KernelsDir):
// kernel.json and the logos. It replaces an earlier installation whole,
// and never leaves a half-written one. It returns the kernelspec's folder.
func Install(dir, name string, spec KernelSpec) (string, error) {
	if name == "" || name != filepath.Base(name) || name[0] == '.' {
		return "", fmt.Errorf("jupyter: kernelspec name %q: want a plain folder name such as sparknet", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("jupyter: installing the kernelspec: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "."+name+".*")
	if err != nil {
		return "", fmt.Errorf("jupyter: installing the kernelspec: %w", err)
	}
	defer os.RemoveAll(tmp)
	js, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", err
	}
	files := map[string][]byte{"kernel.json": append(js, '\n')}
	for _, size := range []int{32, 64} {
		b, err := Logo(size)
		if err != nil {
			return "", err
		}
		files[fmt.Sprintf("logo-%dx%d.png", size, size)] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return "", fmt.Errorf("jupyter: installing the kernelspec: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	final := filepath.Join(dir, name)
	old := ""
	if _, err := os.Stat(final); err == nil {
		old = tmp + ".old"
		if err := os.Rename(final, old); err != nil {
			return "", fmt.Errorf("jupyter: replacing the kernelspec: %w", err)
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			os.Rename(old, final)
		}
		return "", fmt.Errorf("jupyter: installing the kernelspec: %w", err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return final, nil
}

// Logo draws the kernel's logo, size pixels square, as PNG: a spark of
// averaged workers, four nodes around an orange centre.
func Logo(size int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := float64(size)
	bg := color.NRGBA{0x1f, 0x2a, 0x44, 0xff}
	orange := color.NRGBA{0xf3, 0x8a, 0x1c, 0xff}
	white := color.NRGBA{0xf5, 0xf5, 0xf5, 0xff}
	c := s / 2
	r := 0.30 * s
	nodes := [][2]float64{{c, c - r}, {c + r, c}, {c, c + r}, {c - r, c}}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			// A rounded square background.
			if roundedOut(px, py, s, 0.18*s) {
				continue
			}
			col := bg
			for _, n := range nodes {
				if segDist(px, py, c, c, n[0], n[1]) < 0.035*s {
					col = white
				}
			}
			for i, n := range nodes {
				m := nodes[(i+1)%4]
				if segDist(px, py, n[0], n[1], m[0], m[1]) < 0.02*s {
					col = white
				}
				if math.Hypot(px-n[0], py-n[1]) < 0.09*s {
					col = white
				}
			}
			if math.Hypot(px-c, py-c) < 0.15*s {
				col = orange
			}
			img.SetNRGBA(x, y, col)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func roundedOut(x, y, s, r float64) bool {
	cx := math.Min(math.Max(x, r), s-r)
	cy := math.Min(math.Max(y, r), s-r)
	return math.Hypot(x-cx, y-cy) > r
}

// segDist is the distance from (px, py) to the segment (ax, ay)-(bx, by).
func segDist(px, py, ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	t := ((px-ax)*dx + (py-ay)*dy) / (dx*dx + dy*dy)
	t = math.Min(math.Max(t, 0), 1)
	return math.Hypot(px-(ax+t*dx), py-(ay+t*dy))
}
