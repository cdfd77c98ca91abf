package caffe

import (
	"fmt"
	"strings"
	"testing"
)

// input declares an Input layer with one top of the given shape.
func input(top string, dims ...int) string {
	var d []string
	for _, n := range dims {
		d = append(d, fmt.Sprintf("dim: %d", n))
	}
	return fmt.Sprintf("layer { name: %q type: \"Input\" top: %q input_param { shape { %s } } }\n", "in_"+top, top, strings.Join(d, " "))
}

func TestInferShapes(t *testing.T) {
	tests := []struct {
		name   string
		net    string
		inputs map[string][]int
		blobs  map[string]string // blob -> Shape.String()
		params map[string]string // layer -> its param shapes joined by " "
	}{
		{
			name:   "convolution rounds down",
			net:    input("x", 2, 3, 7, 9) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 4 kernel_size: 3 stride: 2 pad: 1 } }`,
			blobs:  map[string]string{"y": "2x4x4x5"},
			params: map[string]string{"c": "4x3x3x3 4"},
		},
		{
			name:   "convolution with groups, 2-D fields, dilation and no bias",
			net:    input("x", 1, 4, 10, 12) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 6 group: 2 kernel_h: 3 kernel_w: 1 stride_h: 2 stride_w: 1 pad_h: 0 pad_w: 2 dilation: 2 bias_term: false } }`,
			blobs:  map[string]string{"y": "1x6x3x16"},
			params: map[string]string{"c": "6x2x3x1"},
		},
		{
			name:   "convolution per-axis lists",
			net:    input("x", 1, 1, 8, 8) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 2 kernel_size: 3 kernel_size: 5 stride: 1 stride: 3 } }`,
			blobs:  map[string]string{"y": "1x2x6x2"},
			params: map[string]string{"c": "2x1x3x5 2"},
		},
		{
			name:   "3-D convolution",
			net:    input("x", 1, 2, 5, 6, 7) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 3 kernel_size: 3 } }`,
			blobs:  map[string]string{"y": "1x3x3x4x5"},
			params: map[string]string{"c": "3x2x3x3x3 3"},
		},
		{
			name:   "deconvolution",
			net:    input("x", 1, 4, 5, 5) + `layer { name: "d" type: "Deconvolution" bottom: "x" top: "y" convolution_param { num_output: 6 group: 2 kernel_size: 4 stride: 2 pad: 1 } }`,
			blobs:  map[string]string{"y": "1x6x10x10"},
			params: map[string]string{"d": "4x3x4x4 6"},
		},
		{
			name:  "pooling rounds up",
			net:   input("x", 1, 32, 32, 32) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }`,
			blobs: map[string]string{"y": "1x32x16x16"},
		},
		{
			name:  "pooling with padding drops a window starting in the padding",
			net:   input("x", 1, 1, 4, 4) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" top: "mask" pooling_param { pool: MAX kernel_size: 2 stride: 2 pad: 1 } }`,
			blobs: map[string]string{"y": "1x1x3x3", "mask": "1x1x3x3"},
		},
		{
			name:  "pooling padding correction",
			net:   input("x", 1, 1, 5, 5) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { pool: AVE kernel_size: 2 stride: 2 pad: 1 } }`,
			blobs: map[string]string{"y": "1x1x3x3"},
		},
		{
			name:  "pooling round_mode FLOOR and rectangles",
			net:   input("x", 1, 1, 7, 8) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { pool: MAX kernel_h: 2 kernel_w: 3 stride_h: 2 stride_w: 3 round_mode: FLOOR } }`,
			blobs: map[string]string{"y": "1x1x3x2"},
		},
		{
			name:  "global pooling",
			net:   input("x", 2, 8, 7, 5) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { pool: AVE global_pooling: true } }`,
			blobs: map[string]string{"y": "2x8x1x1"},
		},
		{
			name:   "inner product over axis 1, transposed, and over axis 2",
			net:    input("x", 2, 3, 4, 5) + `layer { name: "a" type: "InnerProduct" bottom: "x" top: "a" inner_product_param { num_output: 7 transpose: true } } layer { name: "b" type: "InnerProduct" bottom: "x" top: "b" inner_product_param { num_output: 7 axis: 2 bias_term: false } }`,
			blobs:  map[string]string{"a": "2x7", "b": "2x3x7"},
			params: map[string]string{"a": "60x7 7", "b": "7x20"},
		},
		{
			name:  "concat, slice and split",
			net:   input("a", 2, 3, 4) + input("b", 2, 5, 4) + `layer { name: "cat" type: "Concat" bottom: "a" bottom: "b" top: "c" } layer { name: "s" type: "Slice" bottom: "c" top: "s1" top: "s2" top: "s3" slice_param { slice_point: 1 slice_point: 6 } } layer { name: "even" type: "Slice" bottom: "a" top: "e1" top: "e2" slice_param { axis: -1 } } layer { name: "c0" type: "Concat" bottom: "a" bottom: "a" top: "c0" concat_param { concat_dim: 0 } }`,
			blobs: map[string]string{"c": "2x8x4", "s1": "2x1x4", "s2": "2x5x4", "s3": "2x2x4", "e1": "2x3x2", "e2": "2x3x2", "c0": "4x3x4"},
		},
		{
			name:  "flatten, reshape, reduction",
			net:   input("x", 2, 3, 4, 5) + `layer { name: "f" type: "Flatten" bottom: "x" top: "f" } layer { name: "f2" type: "Flatten" bottom: "x" top: "f2" flatten_param { axis: 2 } } layer { name: "r" type: "Reshape" bottom: "x" top: "r" reshape_param { shape { dim: 0 dim: -1 dim: 10 } } } layer { name: "red" type: "Reduction" bottom: "x" top: "red" reduction_param { axis: 2 } } layer { name: "all" type: "Reduction" bottom: "x" top: "all" }`,
			blobs: map[string]string{"f": "2x60", "f2": "2x3x20", "r": "2x6x10", "red": "2x3", "all": "scalar"},
		},
		{
			name:  "reshape replacing a middle axis",
			net:   input("x", 2, 6, 5) + `layer { name: "r" type: "Reshape" bottom: "x" top: "r" reshape_param { shape { dim: 2 dim: 3 } axis: 1 num_axes: 1 } }`,
			blobs: map[string]string{"r": "2x2x3x5"},
		},
		{
			name:   "neurons keep shapes; PReLU, BatchNorm, Scale and Bias parameters",
			net:    input("x", 2, 3, 4, 4) + `layer { name: "relu" type: "ReLU" bottom: "x" top: "r" } layer { name: "pr" type: "PReLU" bottom: "x" top: "pr" } layer { name: "prs" type: "PReLU" bottom: "x" top: "prs" prelu_param { channel_shared: true } } layer { name: "bn" type: "BatchNorm" bottom: "x" top: "bn" } layer { name: "sc" type: "Scale" bottom: "bn" top: "sc" scale_param { bias_term: true } } layer { name: "sc2" type: "Scale" bottom: "x" top: "sc2" scale_param { axis: 2 num_axes: -1 } } layer { name: "bias" type: "Bias" bottom: "x" top: "b" bias_param { axis: 0 num_axes: 2 } }`,
			blobs:  map[string]string{"r": "2x3x4x4", "pr": "2x3x4x4", "bn": "2x3x4x4", "sc": "2x3x4x4"},
			params: map[string]string{"pr": "3", "prs": "scalar", "bn": "3 3 1", "sc": "3 3", "sc2": "4x4", "bias": "2x3"},
		},
		{
			name:   "scale and bias by a second bottom",
			net:    input("x", 2, 3, 4) + input("s", 3) + `layer { name: "sc" type: "Scale" bottom: "x" bottom: "s" top: "y" scale_param { bias_term: true } } layer { name: "b" type: "Bias" bottom: "x" bottom: "s" top: "z" }`,
			blobs:  map[string]string{"y": "2x3x4", "z": "2x3x4"},
			params: map[string]string{"sc": "3"},
		},
		{
			name:  "eltwise, crop, tile, argmax, batch reindex",
			net:   input("a", 1, 3, 8, 8) + input("b", 1, 2, 5, 6) + input("i", 4) + `layer { name: "e" type: "Eltwise" bottom: "a" bottom: "a" top: "e" eltwise_param { operation: PROD } } layer { name: "cr" type: "Crop" bottom: "a" bottom: "b" top: "cr" crop_param { offset: 1 offset: 2 } } layer { name: "t" type: "Tile" bottom: "a" top: "t" tile_param { tiles: 3 } } layer { name: "am" type: "ArgMax" bottom: "a" top: "am" argmax_param { top_k: 2 out_max_val: true } } layer { name: "ax" type: "ArgMax" bottom: "a" top: "ax" argmax_param { axis: 1 } } layer { name: "br" type: "BatchReindex" bottom: "a" bottom: "i" top: "br" }`,
			blobs: map[string]string{"e": "1x3x8x8", "cr": "1x3x5x6", "t": "1x9x8x8", "am": "1x2x2x1", "ax": "1x1x8x8", "br": "4x3x8x8"},
		},
		{
			name:   "embed and im2col",
			net:    input("w", 4, 7) + input("x", 1, 2, 5, 5) + `layer { name: "emb" type: "Embed" bottom: "w" top: "e" embed_param { num_output: 8 input_dim: 100 } } layer { name: "col" type: "Im2col" bottom: "x" top: "col" convolution_param { kernel_size: 3 } }`,
			blobs:  map[string]string{"e": "4x7x8", "col": "1x18x3x3"},
			params: map[string]string{"emb": "100x8 8"},
		},
		{
			name:   "LSTM and RNN",
			net:    input("x", 5, 2, 3, 4) + input("cont", 5, 2) + input("st", 2, 6) + `layer { name: "lstm" type: "LSTM" bottom: "x" bottom: "cont" top: "h" recurrent_param { num_output: 7 } } layer { name: "rnn" type: "RNN" bottom: "x" bottom: "cont" bottom: "st" top: "o" recurrent_param { num_output: 3 } }`,
			blobs:  map[string]string{"h": "5x2x7", "o": "5x2x3"},
			params: map[string]string{"lstm": "28x12 28 28x7", "rnn": "3x12 3 3x6 3x3 3x3 3"},
		},
		{
			name:  "losses, accuracy and softmax",
			net:   input("p", 8, 10) + input("l", 8) + `layer { name: "loss" type: "SoftmaxWithLoss" bottom: "p" bottom: "l" top: "loss" top: "prob" loss_weight: 1 loss_weight: 0 } layer { name: "acc" type: "Accuracy" bottom: "p" bottom: "l" top: "acc" top: "per_class" accuracy_param { top_k: 5 } } layer { name: "sm" type: "Softmax" bottom: "p" top: "sm" } layer { name: "eu" type: "EuclideanLoss" bottom: "p" bottom: "p" top: "eu" }`,
			blobs: map[string]string{"loss": "scalar", "prob": "8x10", "acc": "scalar", "per_class": "10", "sm": "8x10", "eu": "scalar"},
		},
		{
			name:  "dummy data, memory data and parameter",
			net:   `layer { name: "dd" type: "DummyData" top: "a" top: "b" dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 4 } } } layer { name: "dl" type: "DummyData" top: "c" top: "d" dummy_data_param { num: 2 channels: 3 channels: 4 height: 5 width: 6 } } layer { name: "md" type: "MemoryData" top: "m" top: "ml" memory_data_param { batch_size: 8 channels: 1 height: 2 width: 3 } } layer { name: "par" type: "Parameter" top: "p" parameter_param { shape { dim: 3 dim: 3 } } }`,
			blobs: map[string]string{"a": "2x3", "b": "4", "c": "2x3x5x6", "d": "2x4x5x6", "m": "8x1x2x3", "ml": "8", "p": "3x3"},
		},
		{
			name:  "data layers: unknown without the data, or from input shapes",
			net:   `layer { name: "d" type: "Data" top: "data" top: "label" data_param { batch_size: 64 } } layer { name: "img" type: "ImageData" top: "i" top: "il" transform_param { crop_size: 20 } image_data_param { batch_size: 4 is_color: false } } layer { name: "w" type: "WindowData" top: "w" top: "wl" transform_param { crop_size: 9 } window_data_param { batch_size: 3 } } layer { name: "h" type: "HDF5Data" top: "h" hdf5_data_param { batch_size: 2 } } layer { name: "c" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 10 } }`,
			blobs: map[string]string{"data": "?", "label": "64", "i": "4x1x20x20", "il": "4", "w": "3x3x9x9", "h": "?", "ip": "?"},
		},
		{
			name:   "input shapes override and follow the label",
			net:    `layer { name: "d" type: "Data" top: "data" top: "label" data_param { batch_size: 64 } } layer { name: "c" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 10 } }` + "\n" + input("x", 1),
			inputs: map[string][]int{"data": {10, 1, 28, 28}, "x": {3, 3}},
			blobs:  map[string]string{"data": "10x1x28x28", "label": "10", "ip": "10x10", "x": "3x3"},
			params: map[string]string{"c": "10x784 10"},
		},
		{
			name:   "unknown input still gives the bias",
			net:    `layer { name: "py" type: "Python" top: "x" python_param { module: "m" layer: "L" } } layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 5 kernel_size: 3 } } layer { name: "f" type: "Filter" bottom: "y" bottom: "y" top: "z" }`,
			blobs:  map[string]string{"x": "?", "y": "?", "z": "?"},
			params: map[string]string{"c": "? 5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := mustProcess(t, tt.net, NetState{Phase: Train})
			shapes, err := InferShapes(def, tt.inputs)
			if err != nil {
				t.Fatal(err)
			}
			for blob, want := range tt.blobs {
				if got := shapes.Blobs[blob].String(); got != want {
					t.Errorf("blob %s: shape %s, want %s", blob, got, want)
				}
			}
			for layer, want := range tt.params {
				l := def.Layer(layer)
				if l == nil {
					t.Fatalf("no layer %s", layer)
				}
				var got []string
				for _, p := range shapes.Layers[l.Index].Params {
					got = append(got, p.String())
				}
				if g := strings.Join(got, " "); g != want {
					t.Errorf("layer %s: params %s, want %s", layer, g, want)
				}
			}
		})
	}
}

func TestInferShapesErrors(t *testing.T) {
	tests := []struct {
		name   string
		net    string
		inputs map[string][]int
		want   string
	}{
		{"group does not divide channels", input("x", 1, 3, 5, 5) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 4 group: 2 kernel_size: 1 } }`, nil,
			`layer "c" (Convolution): input channels 3 are not a multiple of group 2`},
		{"kernel larger than input", input("x", 1, 1, 2, 2) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 1 kernel_size: 5 } }`, nil,
			`gives output size -2`},
		{"no kernel", input("x", 1, 1, 2, 2) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 1 } }`, nil,
			`convolution_param needs kernel_size (or kernel_h and kernel_w)`},
		{"kernel twice", input("x", 1, 1, 2, 2) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 1 kernel_size: 1 kernel_h: 1 kernel_w: 1 } }`, nil,
			`give kernel_size or kernel_h/kernel_w, not both`},
		{"kernel list length", input("x", 1, 1, 5, 5) + `layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 1 kernel_size: 1 kernel_size: 2 kernel_size: 3 } }`, nil,
			`kernel_size must be given once or once per spatial axis (2), not 3 times`},
		{"pooling without kernel", input("x", 1, 1, 4, 4) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" }`, nil,
			`kernel_size, or both kernel_h and kernel_w, are required`},
		{"pooling needs 4 axes", input("x", 1, 4, 4) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { kernel_size: 2 } }`, nil,
			`input of shape [1 4 4]: want 4 axes (num, channels, height, width)`},
		{"pad not smaller than kernel", input("x", 1, 1, 4, 4) + `layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { kernel_size: 2 pad: 2 } }`, nil,
			`pad 2×2 must be smaller than the kernel 2×2`},
		{"concat mismatch", input("a", 2, 3) + input("b", 3, 3) + `layer { name: "c" type: "Concat" bottom: "a" bottom: "b" top: "c" }`, nil,
			`bottom 1 has shape [3 3], bottom 0 has [2 3]; all inputs must have the same shape except at the concatenation axis 1`},
		{"concat axis and concat_dim", input("a", 2, 3) + `layer { name: "c" type: "Concat" bottom: "a" top: "c" concat_param { axis: 1 concat_dim: 1 } }`, nil,
			`either axis or concat_dim should be specified; not both`},
		{"axis out of range", input("a", 2, 3) + `layer { name: "s" type: "Softmax" bottom: "a" top: "s" softmax_param { axis: 2 } }`, nil,
			`softmax_param.axis 2 out of range for a 2-axis blob (valid: -2..1)`},
		{"slice does not divide", input("a", 2, 5) + `layer { name: "s" type: "Slice" bottom: "a" top: "x" top: "y" }`, nil,
			`2 tops do not evenly divide axis 1 of extent 5`},
		{"eltwise shapes", input("a", 2, 5) + input("b", 2, 4) + `layer { name: "e" type: "Eltwise" bottom: "a" bottom: "b" top: "e" }`, nil,
			`bottom 1 has shape [2 4], bottom 0 has [2 5]; all bottoms must have the same shape`},
		{"labels do not match predictions", input("p", 8, 10) + input("l", 4) + `layer { name: "loss" type: "SoftmaxWithLoss" bottom: "p" bottom: "l" top: "loss" }`, nil,
			`the data (shape [8 10]) and label (shape [4]) must have the same first dimension`},
		{"accuracy label count", input("p", 8, 10, 2) + input("l", 8) + `layer { name: "acc" type: "Accuracy" bottom: "p" bottom: "l" top: "a" }`, nil,
			`8 labels for 16 predictions (scores [8 10 2], axis 1)`},
		{"reshape count", input("a", 2, 5) + `layer { name: "r" type: "Reshape" bottom: "a" top: "r" reshape_param { shape { dim: 3 dim: -1 } } }`, nil,
			`cannot infer the -1 dimension: 10 input values are not a multiple of 3`},
		{"flatten in place", input("a", 2, 5) + `layer { name: "f" type: "Flatten" bottom: "a" top: "a" }`, nil,
			`layer "f" (Flatten): cannot compute in place (top 0 is bottom 0)`},
		{"LRN even size", input("a", 1, 2, 3, 3) + `layer { name: "n" type: "LRN" bottom: "a" top: "n" lrn_param { local_size: 4 } }`, nil,
			`lrn_param.local_size 4 must be odd`},
		{"crop out of bounds", input("a", 1, 1, 4, 4) + input("b", 1, 1, 3, 3) + `layer { name: "c" type: "Crop" bottom: "a" bottom: "b" top: "c" crop_param { offset: 2 } }`, nil,
			`axis 2: offset 2 + size 3 runs past the bottom's 4`},
		{"input shape for a computed blob", input("a", 1, 2) + `layer { name: "r" type: "ReLU" bottom: "a" top: "r" }`, map[string][]int{"r": {1}},
			`a shape is given for blob "r", which is not a top of a data or input layer of net ""; give shapes for: a`},
		{"negative input dimension", input("a", 1, -2), nil,
			`negative dimension in shape [1 -2]`},
		{"too large input", input("a", 1<<20, 1<<20), nil,
			`has more than 2147483647 elements`},
		{"huge parameter", input("w", 2) + `layer { name: "e" type: "Embed" bottom: "w" top: "e" embed_param { num_output: 2 input_dim: 4000000000 } }`, nil,
			`layer "e" (Embed): parameter 0: shape [4000000000 2] has more than 2147483647 elements`},
		{"shared parameter shapes", input("a", 2, 3) + input("b", 2, 4) + `layer { name: "x" type: "InnerProduct" bottom: "a" top: "x" param { name: "w" } inner_product_param { num_output: 2 } } layer { name: "y" type: "InnerProduct" bottom: "b" top: "y" param { name: "w" } inner_product_param { num_output: 2 } }`, nil,
			`cannot share param "w" of layer "x": shapes differ (owner 2x3, here 2x4)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np, err := ParseNetParameter("shapes.prototxt", []byte(tt.net))
			if err != nil {
				t.Fatal(err)
			}
			// Settings a layer reads from its definition are checked
			// when the net is processed, the rest by shape inference.
			def, err := ProcessNet(np, NetState{Phase: Test})
			if err == nil {
				_, err = InferShapes(def, tt.inputs)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
		})
	}
}

// Permissive sharing only needs equal counts.
func TestInferShapesPermissiveSharing(t *testing.T) {
	def := mustProcess(t, input("a", 2, 6)+input("b", 2, 3)+`
layer { name: "x" type: "InnerProduct" bottom: "a" top: "x" param { name: "w" } inner_product_param { num_output: 2 bias_term: false } }
layer { name: "y" type: "InnerProduct" bottom: "b" top: "y" param { name: "w" share_mode: PERMISSIVE } inner_product_param { num_output: 4 bias_term: false } }`, NetState{})
	shapes, err := InferShapes(def, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := shapes.Layers[def.Layer("y").Index].Params[0].String(); got != "4x3" {
		t.Errorf("sharer's shape %s", got)
	}
}

func TestShapeMethods(t *testing.T) {
	tests := []struct {
		s     Shape
		str   string
		count int
	}{
		{nil, "?", -1},
		{Shape{}, "scalar", 1},
		{Shape{2, 3}, "2x3", 6},
		{Shape{4, 0}, "4x0", 0},
	}
	for _, tt := range tests {
		if tt.s.String() != tt.str || tt.s.Count() != tt.count || tt.s.Known() != (tt.s != nil) {
			t.Errorf("%#v: %q %d", tt.s, tt.s.String(), tt.s.Count())
		}
	}
}
