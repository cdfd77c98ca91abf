package caffe

// Caffe's WindowData layer crops windows out of images listed with their
// boxes (R-CNN's training data). sparknet does not run it; its shapes are
// known, so nets using it process and summarise.

func init() {
	mustRegisterLayerType(LayerType{Name: "WindowData", Bottoms: Exactly(0), Tops: Exactly(2), Data: true, Shape: windowDataShapes})
}

// windowDataShapes is WindowData's shape rule: batch_size color crops of
// transform_param.crop_size, and their labels.
func windowDataShapes(c *ShapeContext) error {
	crop := int(c.Def.GetTransformParam().GetCropSize())
	if crop <= 0 {
		return c.Errorf("WindowData needs transform_param.crop_size > 0")
	}
	batch := int(c.Def.GetWindowDataParam().GetBatchSize())
	c.Tops[0] = Shape{batch, 3, crop, crop}
	c.Tops[1] = Shape{batch}
	return nil
}
