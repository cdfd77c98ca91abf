package caffe

// Caffe's HDF5Data layer reads the datasets of HDF5 files its source
// lists, and HDF5Output writes its bottoms to an HDF5 file. sparknet runs
// neither (it reads no HDF5); nets using them process and summarise, with
// the shapes of HDF5Data's tops unknown.

func init() {
	noShapes := func(*ShapeContext) error { return nil }
	mustRegisterLayerType(LayerType{Name: "HDF5Data", Bottoms: Exactly(0), Tops: AtLeast(1), Data: true, Shape: noShapes})
	mustRegisterLayerType(LayerType{Name: "HDF5Output", Bottoms: Exactly(2), Tops: Exactly(0), Shape: noShapes})
}
