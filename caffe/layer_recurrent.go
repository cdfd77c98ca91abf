package caffe

// Caffe's recurrent layers, LSTM and RNN, unroll a net over time steps.
// sparknet does not run them; their shapes and parameters are known, so
// nets using them process and summarise.

func init() {
	mustRegisterLayerType(LayerType{Name: "LSTM", Shape: recurrentShapes})
	mustRegisterLayerType(LayerType{Name: "RNN", Shape: recurrentShapes})
}

// recurrentShapes is the shape rule of LSTM and RNN (recurrent_param):
// bottoms x (T×N×…), cont (T×N), an optional static input (N×…) and, with
// expose_hidden, the hidden states; tops h (T×N×num_output) and the
// exposed states. The parameters follow the unrolled net: the input
// transform (weights, bias), the static input's weights, the hidden
// transform, and for RNN the output transform (weights, bias).
func recurrentShapes(c *ShapeContext) error {
	p := orDefaults(c.Def.GetRecurrentParam())
	h := int(p.GetNumOutput())
	if h <= 0 {
		return c.Errorf("recurrent_param.num_output must be positive")
	}
	lstm := c.Def.GetType() == "LSTM"
	hidden := 0
	if p.GetExposeHidden() {
		hidden = 1
		if lstm {
			hidden = 2
		}
	}
	if len(c.Bottoms) < 2+hidden || len(c.Bottoms) > 3+hidden {
		states := ""
		if hidden > 0 {
			states = ", hidden states"
		}
		return c.Errorf("takes %d or %d bottoms (x, cont, [static input]%s), has %d", 2+hidden, 3+hidden, states, len(c.Bottoms))
	}
	if len(c.Tops) != 1+hidden {
		return c.Errorf("takes %d tops, has %d", 1+hidden, len(c.Tops))
	}
	static := len(c.Bottoms) > 2+hidden
	gates := h
	if lstm {
		gates = 4 * h
	}
	x := c.Bottoms[0]
	var xw Shape
	if x.Known() {
		if len(x) < 2 {
			return c.Errorf("bottom 0 must have at least 2 axes (time steps, streams, ...), got %v", x)
		}
		xw = Shape{gates, x.count(2, len(x))}
	}
	c.Params = []Shape{xw, {gates}}
	if static {
		var s Shape
		if st := c.Bottoms[2]; st.Known() {
			if len(st) < 1 {
				return c.Errorf("the static input must have at least 1 axis")
			}
			s = Shape{gates, st.count(1, len(st))}
		}
		c.Params = append(c.Params, s)
	}
	c.Params = append(c.Params, Shape{gates, h})
	if !lstm {
		c.Params = append(c.Params, Shape{h, h}, Shape{h})
	}
	if !c.Known() {
		return nil
	}
	if cont := c.Bottoms[1]; len(cont) != 2 || cont[0] != x[0] || cont[1] != x[1] {
		return c.Errorf("bottom 1 (sequence continuation) must be %dx%d, got %v", x[0], x[1], cont)
	}
	if static && (len(c.Bottoms[2]) < 1 || c.Bottoms[2][0] != x[1]) {
		return c.Errorf("the static input's first axis must be the %d streams, got %v", x[1], c.Bottoms[2])
	}
	c.Tops[0] = Shape{x[0], x[1], h}
	for j := 1; j < len(c.Tops); j++ {
		c.Tops[j] = Shape{1, x[1], h}
	}
	return nil
}
