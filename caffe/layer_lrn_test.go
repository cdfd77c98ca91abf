package caffe

import (
	"math"
	"strings"
	"testing"
)

// directLRN computes LRN by its definition.
func directLRN(x []float32, n, c, h, w, size int, alpha, beta, k float64, within bool) []float32 {
	y := make([]float32, len(x))
	pre := (size - 1) / 2
	at := func(nn, cc, hh, ww int) float64 {
		if cc < 0 || cc >= c || hh < 0 || hh >= h || ww < 0 || ww >= w {
			return 0
		}
		return float64(x[((nn*c+cc)*h+hh)*w+ww])
	}
	for nn := range n {
		for cc := range c {
			for hh := range h {
				for ww := range w {
					var s float64
					if within {
						for dy := -pre; dy <= pre; dy++ {
							for dx := -pre; dx <= pre; dx++ {
								v := at(nn, cc, hh+dy, ww+dx)
								s += v * v
							}
						}
						s = 1 + alpha/float64(size*size)*s
					} else {
						for dc := -pre; dc <= pre; dc++ {
							v := at(nn, cc+dc, hh, ww)
							s += v * v
						}
						s = k + alpha/float64(size)*s
					}
					i := ((nn*c+cc)*h+hh)*w + ww
					y[i] = float32(float64(x[i]) * math.Pow(s, -beta))
				}
			}
		}
	}
	return y
}

func TestLayerLRNForward(t *testing.T) {
	cases := []struct {
		name   string
		param  string
		size   int
		alpha  float64
		beta   float64
		k      float64
		within bool
	}{
		{"across-default", ``, 5, 1, 0.75, 1, false},
		{"across-alexnet", `local_size: 3 alpha: 0.5 beta: 0.6 k: 2`, 3, 0.5, 0.6, 2, false},
		{"across-beta-1", `local_size: 3 alpha: 0.5 beta: 1 k: 2`, 3, 0.5, 1, 2, false},
		{"across-beta-half", `local_size: 5 alpha: 0.3 beta: 0.5`, 5, 0.3, 0.5, 1, false},
		{"within", `local_size: 3 alpha: 0.7 beta: 0.75 norm_region: WITHIN_CHANNEL`, 3, 0.7, 0.75, 1, true},
		{"within-k-ignored", `local_size: 5 alpha: 2 beta: 0.5 k: 9 norm_region: WITHIN_CHANNEL`, 5, 2, 0.5, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := randBlob(1, -2, 2, 2, 7, 3, 4), NewBlob()
			l := setupLayer(t, `type: "LRN" lrn_param { `+c.param+` }`, nil, blobs(x), blobs(y))
			if err := l.Forward(blobs(x), blobs(y)); err != nil {
				t.Fatal(err)
			}
			want := directLRN(x.DataSlice(), 2, 7, 3, 4, c.size, c.alpha, c.beta, c.k, c.within)
			if !closeSlices(y.DataSlice(), want, 1e-5) {
				t.Errorf("got %v\nwant %v", y.DataSlice(), want)
			}
		})
	}
	if _, err := NewLayer(parseLayerDef(t, `type: "LRN" lrn_param { local_size: 4 }`), nil); err == nil || !strings.Contains(err.Error(), "odd") {
		t.Errorf("even local_size: %v", err)
	}
}
