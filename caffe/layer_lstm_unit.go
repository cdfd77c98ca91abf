package caffe

// LSTMUnit is one step of an LSTM's cell (Caffe's LSTMUnit layer, which
// the unrolled LSTM uses). sparknet does not run it; its shapes are known.

func init() {
	mustRegisterLayerType(LayerType{Name: "LSTMUnit", Bottoms: Exactly(3), Tops: Exactly(2), Shape: lstmUnitShapes})
}

// lstmUnitShapes is LSTMUnit's shape rule: bottoms the previous cell
// (1×N×D), the gate inputs (1×N×4D) and the continuation flags; tops the
// cell and the hidden state, both 1×N×D.
func lstmUnitShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	prev, x := c.Bottoms[0], c.Bottoms[1]
	if len(prev) != 3 || prev[0] != 1 {
		return c.Errorf("bottom 0 (previous cell) must be 1xNxD, got %v", prev)
	}
	if len(x) != 3 || x[2] != 4*prev[2] {
		return c.Errorf("bottom 1 (gate input) must be 1xNx%d, got %v", 4*prev[2], x)
	}
	c.Tops[0] = prev.clone()
	c.Tops[1] = prev.clone()
	return nil
}
