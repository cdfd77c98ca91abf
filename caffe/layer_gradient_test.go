package caffe

import (
	"testing"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

// TestLayerGradients checks the gradients of every layer that has
// parameters or passes gradients to its bottoms, on tiny shapes.
func TestLayerGradients(t *testing.T) {
	train := &LayerEnv{Phase: caffepb.Phase_TRAIN, Seed: 7}
	test := &LayerEnv{Phase: caffepb.Phase_TEST, Seed: 7}
	gauss := `weight_filler { type: "gaussian" std: 0.5 } bias_filler { type: "gaussian" std: 0.5 }`
	cases := []struct {
		name   string
		def    string
		env    *LayerEnv
		bottom func() []*Blob
		tops   int
		check  gradCheck
	}{
		{
			name:   "InnerProduct",
			def:    `type: "InnerProduct" inner_product_param { num_output: 3 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(1, -1, 1, 2, 2, 2, 1)) },
			tops:   1,
		},
		{
			name:   "InnerProduct/transpose",
			def:    `type: "InnerProduct" inner_product_param { num_output: 3 transpose: true ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(2, -1, 1, 2, 4)) },
			tops:   1,
		},
		{
			name:   "InnerProduct/axis2",
			def:    `type: "InnerProduct" inner_product_param { num_output: 2 axis: 2 bias_term: false ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(3, -1, 1, 2, 3, 4)) },
			tops:   1,
		},
		{
			name:   "Convolution",
			def:    `type: "Convolution" convolution_param { num_output: 3 kernel_size: 3 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(4, -1, 1, 2, 2, 5, 5)) },
			tops:   1,
		},
		{
			name:   "Convolution/pad-stride",
			def:    `type: "Convolution" convolution_param { num_output: 2 kernel_h: 3 kernel_w: 2 pad_h: 1 pad_w: 2 stride_h: 2 stride_w: 1 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(5, -1, 1, 2, 2, 5, 4)) },
			tops:   1,
		},
		{
			name:   "Convolution/group-dilation",
			def:    `type: "Convolution" convolution_param { num_output: 4 group: 2 kernel_size: 2 dilation: 2 pad: 1 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(6, -1, 1, 2, 4, 4, 4)) },
			tops:   1,
		},
		{
			name:   "Convolution/1x1-two-bottoms",
			def:    `type: "Convolution" convolution_param { num_output: 2 kernel_size: 1 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(7, -1, 1, 2, 3, 2, 3), randBlob(8, -1, 1, 2, 3, 2, 3)) },
			tops:   2,
		},
		{
			name:   "Pooling/MAX",
			def:    `type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }`,
			bottom: func() []*Blob { return blobs(distinctBlob(9, 2, 2, 5, 5)) },
			tops:   1,
		},
		{
			name:   "Pooling/MAX-pad-mask",
			def:    `type: "Pooling" pooling_param { pool: MAX kernel_h: 3 kernel_w: 2 pad_h: 1 pad_w: 1 stride: 2 }`,
			bottom: func() []*Blob { return blobs(distinctBlob(10, 1, 2, 6, 5)) },
			tops:   1,
		},
		{
			name:   "Pooling/AVE-pad",
			def:    `type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 }`,
			bottom: func() []*Blob { return blobs(randBlob(11, -1, 1, 2, 2, 5, 6)) },
			tops:   1,
		},
		{
			name:   "Pooling/AVE-global",
			def:    `type: "Pooling" pooling_param { pool: AVE global_pooling: true }`,
			bottom: func() []*Blob { return blobs(randBlob(12, -1, 1, 2, 3, 3, 4)) },
			tops:   1,
		},
		{
			name:   "ReLU",
			def:    `type: "ReLU"`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(13, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "ReLU/leaky",
			def:    `type: "ReLU" relu_param { negative_slope: 0.1 }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(14, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Sigmoid",
			def:    `type: "Sigmoid"`,
			bottom: func() []*Blob { return blobs(randBlob(15, -3, 3, 2, 5)) },
			tops:   1,
		},
		{
			name:   "TanH",
			def:    `type: "TanH"`,
			bottom: func() []*Blob { return blobs(randBlob(16, -2, 2, 2, 5)) },
			tops:   1,
		},
		{
			name:   "AbsVal",
			def:    `type: "AbsVal"`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(17, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Power",
			def:    `type: "Power" power_param { power: 1.7 scale: 0.8 shift: 2.1 }`,
			bottom: func() []*Blob { return blobs(randBlob(18, -1, 1, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Power/square",
			def:    `type: "Power" power_param { power: 2 scale: -0.6 shift: 0.3 }`,
			bottom: func() []*Blob { return blobs(randBlob(19, -1, 1, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Power/no-shift",
			def:    `type: "Power" power_param { power: 3 scale: 0.5 }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(20, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Deconvolution",
			def:    `type: "Deconvolution" convolution_param { num_output: 3 kernel_size: 3 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(131, -1, 1, 2, 2, 3, 3)) },
			tops:   1,
		},
		{
			name:   "Deconvolution/stride-pad-group-dilation",
			def:    `type: "Deconvolution" convolution_param { num_output: 4 group: 2 kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 3 pad_h: 1 pad_w: 0 dilation: 2 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(randBlob(132, -1, 1, 2, 4, 3, 2)) },
			tops:   1,
		},
		{
			name: "ContrastiveLoss",
			def:  `type: "ContrastiveLoss" contrastive_loss_param { margin: 2 }`,
			bottom: func() []*Blob {
				return blobs(randBlob(141, -1, 1, 4, 3), randBlob(142, -1, 1, 4, 3), blobOf([]int{4}, 1, 0, 0, 1))
			},
			tops:  1,
			check: gradCheck{bottoms: []int{0, 1}, threshold: 1e-2},
		},
		{
			name: "ContrastiveLoss/legacy",
			def:  `type: "ContrastiveLoss" contrastive_loss_param { margin: 3 legacy_version: true }`,
			bottom: func() []*Blob {
				return blobs(randBlob(143, -1, 1, 4, 3), randBlob(144, -1, 1, 4, 3), blobOf([]int{4}, 0, 1, 0, 0))
			},
			tops:  1,
			check: gradCheck{bottoms: []int{0, 1}, threshold: 1e-2},
		},
		{
			name:   "MultinomialLogisticLoss",
			def:    `type: "MultinomialLogisticLoss"`,
			bottom: func() []*Blob { return blobs(randBlob(145, 0.2, 1, 3, 4), labelBlob(146, 4, 3)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name:   "HingeLoss",
			def:    `type: "HingeLoss"`,
			bottom: func() []*Blob { return blobs(hingeScores(147), labelBlob(148, 4, 3)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name:   "HingeLoss/L2",
			def:    `type: "HingeLoss" hinge_loss_param { norm: L2 }`,
			bottom: func() []*Blob { return blobs(randBlob(149, -2, 2, 3, 4), labelBlob(150, 4, 3)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name:   "Crop",
			def:    `type: "Crop" crop_param { axis: 1 offset: [1, 0, 2] }`,
			bottom: func() []*Blob { return blobs(randBlob(151, -1, 1, 2, 3, 4, 5), NewBlob(2, 2, 3, 2)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{0}},
		},
		{
			name:   "Tile",
			def:    `type: "Tile" tile_param { axis: 1 tiles: 3 }`,
			bottom: func() []*Blob { return blobs(randBlob(152, -1, 1, 2, 2, 3)) },
			tops:   1,
		},
		{
			name:   "Reduction/SUMSQ",
			def:    `type: "Reduction" reduction_param { operation: SUMSQ axis: 1 coeff: 0.5 }`,
			bottom: func() []*Blob { return blobs(randBlob(153, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Reduction/ASUM",
			def:    `type: "Reduction" reduction_param { operation: ASUM axis: -1 }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(154, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Reduction/MEAN",
			def:    `type: "Reduction" reduction_param { operation: MEAN coeff: -2 }`,
			bottom: func() []*Blob { return blobs(randBlob(155, -1, 1, 2, 3)) },
			tops:   1,
		},
		{
			name:   "MVN",
			def:    `type: "MVN"`,
			bottom: func() []*Blob { return blobs(randBlob(161, -1, 1, 2, 3, 2, 2)) },
			tops:   1,
			check:  gradCheck{threshold: 1e-2},
		},
		{
			name:   "MVN/across-mean-only",
			def:    `type: "MVN" mvn_param { across_channels: true normalize_variance: false }`,
			bottom: func() []*Blob { return blobs(randBlob(162, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Embed",
			def:    `type: "Embed" embed_param { num_output: 3 input_dim: 5 ` + gauss + ` }`,
			bottom: func() []*Blob { return blobs(blobOf([]int{2, 2}, 4, 0, 2, 4)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{}},
		},
		{
			name:   "SPP/MAX",
			def:    `type: "SPP" spp_param { pyramid_height: 3 }`,
			bottom: func() []*Blob { return blobs(distinctBlob(171, 2, 2, 9, 8)) },
			tops:   1,
		},
		{
			name:   "SPP/AVE",
			def:    `type: "SPP" spp_param { pyramid_height: 2 pool: AVE }`,
			bottom: func() []*Blob { return blobs(randBlob(172, -1, 1, 2, 3, 5, 6)) },
			tops:   1,
		},
		{
			name:   "Im2col",
			def:    `type: "Im2col" convolution_param { kernel_size: 2 stride: 2 pad: 1 }`,
			bottom: func() []*Blob { return blobs(randBlob(181, -1, 1, 2, 2, 3, 4)) },
			tops:   1,
		},
		{
			name:   "BatchReindex",
			def:    `type: "BatchReindex"`,
			bottom: func() []*Blob { return blobs(randBlob(182, -1, 1, 3, 2, 2), blobOf([]int{4}, 2, 0, 2, 1)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{0}},
		},
		{
			name: "Filter",
			def:  `type: "Filter"`,
			bottom: func() []*Blob {
				return blobs(randBlob(183, -1, 1, 4, 3), randBlob(184, -1, 1, 4, 2), blobOf([]int{4}, 1, 0, 0, 1))
			},
			tops:  2,
			check: gradCheck{bottoms: []int{0, 1}},
		},
		{
			name: "InfogainLoss",
			def:  `type: "InfogainLoss"`,
			bottom: func() []*Blob {
				return blobs(randBlob(191, -2, 2, 3, 4), labelBlob(192, 4, 3), randBlob(193, 0, 1, 4, 4))
			},
			tops:  1,
			check: gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name: "InfogainLoss/spatial-ignore",
			def:  `type: "InfogainLoss" loss_param { ignore_label: 2 }`,
			bottom: func() []*Blob {
				return blobs(randBlob(194, -2, 2, 2, 3, 2), labelBlob(195, 3, 2, 2), randBlob(196, 0, 1, 3, 3))
			},
			tops:  1,
			check: gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name:   "ELU",
			def:    `type: "ELU" elu_param { alpha: 0.7 }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(121, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Exp",
			def:    `type: "Exp" exp_param { base: 3 scale: 0.6 shift: -0.2 }`,
			bottom: func() []*Blob { return blobs(randBlob(122, -1, 1, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Log",
			def:    `type: "Log" log_param { scale: 0.5 shift: 2 }`,
			bottom: func() []*Blob { return blobs(randBlob(123, -1, 1, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Clip",
			def:    `type: "Clip" clip_param { min: -0.5 max: 0.4 }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(124, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Swish",
			def:    `type: "Swish" swish_param { beta: 1.5 }`,
			bottom: func() []*Blob { return blobs(randBlob(125, -2, 2, 2, 5)) },
			tops:   1,
		},
		{
			name:   "PReLU",
			def:    `type: "PReLU" prelu_param { filler { type: "uniform" min: 0.1 max: 0.6 } }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(126, 2, 3, 2, 2)) },
			tops:   1,
		},
		{
			name:   "PReLU/shared",
			def:    `type: "PReLU" prelu_param { channel_shared: true }`,
			bottom: func() []*Blob { return blobs(awayFromZeroBlob(127, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "BNLL",
			def:    `type: "BNLL"`,
			bottom: func() []*Blob { return blobs(randBlob(21, -3, 3, 2, 5)) },
			tops:   1,
		},
		{
			name:   "Dropout/TEST",
			def:    `type: "Dropout" dropout_param { dropout_ratio: 0.3 }`,
			env:    test,
			bottom: func() []*Blob { return blobs(randBlob(22, -1, 1, 2, 5)) },
			tops:   1,
		},
		{
			name:   "LRN/ACROSS_CHANNELS",
			def:    `type: "LRN" lrn_param { local_size: 3 alpha: 0.8 beta: 0.75 k: 1.5 }`,
			bottom: func() []*Blob { return blobs(randBlob(23, -1, 1, 2, 5, 2, 2)) },
			tops:   1,
			check:  gradCheck{threshold: 1e-2},
		},
		{
			name:   "LRN/WITHIN_CHANNEL",
			def:    `type: "LRN" lrn_param { local_size: 3 alpha: 0.9 beta: 0.75 norm_region: WITHIN_CHANNEL }`,
			bottom: func() []*Blob { return blobs(randBlob(24, -1, 1, 2, 2, 4, 3)) },
			tops:   1,
			check:  gradCheck{threshold: 1e-2},
		},
		{
			name:   "Softmax",
			def:    `type: "Softmax"`,
			bottom: func() []*Blob { return blobs(randBlob(25, -2, 2, 2, 4)) },
			tops:   1,
		},
		{
			name:   "Softmax/spatial",
			def:    `type: "Softmax" softmax_param { axis: 1 }`,
			bottom: func() []*Blob { return blobs(randBlob(26, -2, 2, 2, 3, 2, 2)) },
			tops:   1,
		},
		{
			name:   "SoftmaxWithLoss",
			def:    `type: "SoftmaxWithLoss"`,
			bottom: func() []*Blob { return blobs(randBlob(27, -2, 2, 3, 5), labelBlob(28, 5, 3)) },
			tops:   1,
			check:  gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name: "SoftmaxWithLoss/spatial-ignore-full",
			def:  `type: "SoftmaxWithLoss" loss_param { ignore_label: 1 normalization: FULL }`,
			bottom: func() []*Blob {
				return blobs(randBlob(29, -2, 2, 2, 3, 2, 2), labelBlob(30, 3, 2, 1, 2, 2))
			},
			tops:  2,
			check: gradCheck{bottoms: []int{0}, tops: []int{0}, threshold: 1e-2},
		},
		{
			name:   "EuclideanLoss",
			def:    `type: "EuclideanLoss"`,
			bottom: func() []*Blob { return blobs(randBlob(31, -1, 1, 3, 2, 2), randBlob(32, -1, 1, 3, 4)) },
			tops:   1,
			check:  gradCheck{threshold: 1e-2},
		},
		{
			name: "SigmoidCrossEntropyLoss",
			def:  `type: "SigmoidCrossEntropyLoss"`,
			bottom: func() []*Blob {
				return blobs(randBlob(33, -3, 3, 2, 4), randBlob(34, 0, 1, 2, 4))
			},
			tops:  1,
			check: gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name: "SigmoidCrossEntropyLoss/ignore-valid",
			def:  `type: "SigmoidCrossEntropyLoss" loss_param { ignore_label: -1 normalize: true }`,
			bottom: func() []*Blob {
				return blobs(randBlob(35, -3, 3, 2, 4), blobOf([]int{2, 4}, 1, 0, -1, 1, 0, -1, 0, 1))
			},
			tops:  1,
			check: gradCheck{bottoms: []int{0}, threshold: 1e-2},
		},
		{
			name:   "Concat",
			def:    `type: "Concat"`,
			bottom: func() []*Blob { return blobs(randBlob(36, -1, 1, 2, 1, 2), randBlob(37, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Concat/axis2",
			def:    `type: "Concat" concat_param { axis: -1 }`,
			bottom: func() []*Blob { return blobs(randBlob(38, -1, 1, 2, 2, 1), randBlob(39, -1, 1, 2, 2, 3)) },
			tops:   1,
		},
		{
			name:   "Slice",
			def:    `type: "Slice" slice_param { slice_point: 1 slice_point: 3 }`,
			bottom: func() []*Blob { return blobs(randBlob(40, -1, 1, 2, 4, 2)) },
			tops:   3,
		},
		{
			name:   "Split",
			def:    `type: "Split"`,
			bottom: func() []*Blob { return blobs(randBlob(41, -1, 1, 2, 3)) },
			tops:   3,
		},
		{
			name:   "Flatten",
			def:    `type: "Flatten"`,
			bottom: func() []*Blob { return blobs(randBlob(42, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Reshape",
			def:    `type: "Reshape" reshape_param { shape { dim: 0 dim: -1 } }`,
			bottom: func() []*Blob { return blobs(randBlob(43, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name: "Eltwise/SUM",
			def:  `type: "Eltwise" eltwise_param { operation: SUM coeff: 1 coeff: -0.5 coeff: 2 }`,
			bottom: func() []*Blob {
				return blobs(randBlob(44, -1, 1, 2, 3), randBlob(45, -1, 1, 2, 3), randBlob(46, -1, 1, 2, 3))
			},
			tops: 1,
		},
		{
			name: "Eltwise/PROD",
			def:  `type: "Eltwise" eltwise_param { operation: PROD }`,
			bottom: func() []*Blob {
				return blobs(randBlob(47, -1, 1, 2, 3), randBlob(48, -1, 1, 2, 3), randBlob(49, -1, 1, 2, 3))
			},
			tops: 1,
		},
		{
			name: "Eltwise/PROD-unstable",
			def:  `type: "Eltwise" eltwise_param { operation: PROD stable_prod_grad: false }`,
			bottom: func() []*Blob {
				return blobs(awayFromZeroBlob(50, 2, 3), awayFromZeroBlob(51, 2, 3))
			},
			tops: 1,
		},
		{
			name:   "Eltwise/MAX",
			def:    `type: "Eltwise" eltwise_param { operation: MAX }`,
			bottom: func() []*Blob { return distinctBlobs(52, 3, 2, 3) },
			tops:   1,
		},
		{
			name:   "BatchNorm/batch-stats",
			def:    `type: "BatchNorm"`,
			env:    train,
			bottom: func() []*Blob { return blobs(randBlob(55, -1, 1, 3, 2, 2, 2)) },
			tops:   1,
			check:  gradCheck{noParams: true, threshold: 1e-2},
		},
		{
			name:   "BatchNorm/2d",
			def:    `type: "BatchNorm" batch_norm_param { use_global_stats: false }`,
			bottom: func() []*Blob { return blobs(randBlob(56, -1, 1, 4, 3)) },
			tops:   1,
			check:  gradCheck{noParams: true, threshold: 1e-2},
		},
		{
			name:   "Scale",
			def:    `type: "Scale" scale_param { filler { type: "gaussian" } }`,
			bottom: func() []*Blob { return blobs(randBlob(57, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Scale/bias-axes",
			def:    `type: "Scale" scale_param { axis: 1 num_axes: 2 bias_term: true filler { type: "gaussian" } bias_filler { type: "gaussian" } }`,
			bottom: func() []*Blob { return blobs(randBlob(58, -1, 1, 2, 3, 2, 2)) },
			tops:   1,
		},
		{
			name:   "Scale/two-bottoms",
			def:    `type: "Scale" scale_param { axis: 0 bias_term: true }`,
			bottom: func() []*Blob { return blobs(randBlob(59, -1, 1, 2, 3, 2), randBlob(60, -1, 1, 2, 3)) },
			tops:   1,
		},
		{
			name:   "Bias",
			def:    `type: "Bias" bias_param { filler { type: "gaussian" } }`,
			bottom: func() []*Blob { return blobs(randBlob(61, -1, 1, 2, 3, 2)) },
			tops:   1,
		},
		{
			name:   "Bias/two-bottoms",
			def:    `type: "Bias" bias_param { axis: -1 }`,
			bottom: func() []*Blob { return blobs(randBlob(62, -1, 1, 2, 3, 2), randBlob(63, -1, 1, 2)) },
			tops:   1,
		},
		{
			name:   "Silence",
			def:    `type: "Silence"`,
			bottom: func() []*Blob { return blobs(randBlob(64, -1, 1, 2, 3)) },
			tops:   0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bottom := c.bottom()
			top := make([]*Blob, c.tops)
			for i := range top {
				top[i] = NewBlob()
			}
			env := c.env
			if env == nil {
				env = train
			}
			l := setupLayer(t, c.def, env, bottom, top)
			c.check.run(t, l, bottom, top)
		})
	}
}

// TestLayerDropoutGradient checks Dropout in TRAIN with the mask held
// fixed by reseeding its random stream before every forward pass.
func TestLayerDropoutGradient(t *testing.T) {
	bottom, top := randBlob(1, -1, 1, 3, 4), NewBlob()
	l := setupLayer(t, `type: "Dropout" dropout_param { dropout_ratio: 0.4 }`, &LayerEnv{Seed: 3}, blobs(bottom), blobs(top))
	d := l.(*Dropout)
	gradCheck{before: func() { d.rng.Seed(ndarray.PCGSeeds(99)) }}.run(t, l, blobs(bottom), blobs(top))
}

// hingeScores returns 3×4 scores kept away from the hinges at ±1, where
// the L1 hinge loss has no derivative.
func hingeScores(seed uint64) *Blob {
	b := randBlob(seed, -0.8, 0.8, 3, 4)
	for i, v := range b.DataSlice() {
		if v > 0.5 {
			b.DataSlice()[i] = v + 0.7 // past the hinge
		}
	}
	return b
}
