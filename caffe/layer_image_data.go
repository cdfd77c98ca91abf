package caffe

import (
	"fmt"
	"path/filepath"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "ImageData", Bottoms: Exactly(0), Tops: Exactly(2), Data: true, New: newImageDataLayer, Shape: ruleOf((*DataLayer).inferShapes)})
}

// newImageDataLayer builds Caffe's ImageData layer: the images its list
// file names (image_data_param.source, "PATH LABEL" lines; root_folder
// prepended to the paths, else the list's folder) resized to new_height ×
// new_width when given, gray unless is_color, read in list order or
// shuffled every epoch, transformed by transform_param. It runs as a
// DataLayer over the decoded images, which Setup reads.
func newImageDataLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetImageDataParam()
	if p.GetBatchSize() == 0 {
		return nil, fmt.Errorf("image_data_param.batch_size must be positive")
	}
	if (p.GetNewHeight() == 0) != (p.GetNewWidth() == 0) {
		return nil, fmt.Errorf("image_data_param: give both new_height and new_width, or neither")
	}
	l := &DataLayer{layerBase: newLayerBase("ImageData", def, env), batch: int(p.GetBatchSize())}
	// The images' shape is known when they are resized or cropped.
	channels := 1
	if p.GetIsColor() {
		channels = 3
	}
	switch crop := int(def.GetTransformParam().GetCropSize()); {
	case crop > 0:
		l.sampleShape = Shape{channels, crop, crop}
	case p.GetNewHeight() > 0:
		l.sampleShape = Shape{channels, int(p.GetNewHeight()), int(p.GetNewWidth())}
	}
	l.open = func() (*data.Batcher, error) {
		env := l.env
		list := p.GetSource()
		if list == "" {
			return nil, fmt.Errorf("image_data_param.source is empty: name a list file of \"PATH LABEL\" lines")
		}
		if !filepath.IsAbs(list) && env.Dir != "" && !exists(list) {
			list = filepath.Join(env.Dir, list)
		}
		o := data.ImageOptions{Height: int(p.GetNewHeight()), Width: int(p.GetNewWidth()), Gray: !p.GetIsColor()}
		key := fmt.Sprintf("imagedata\x00%s\x00%s\x00%d×%d/%v", list, p.GetRootFolder(), o.Height, o.Width, o.Gray)
		samplesCache.Lock()
		s := samplesCache.m[key]
		samplesCache.Unlock()
		if s == nil {
			var err error
			if s, err = data.ReadImageList(list, p.GetRootFolder(), o); err != nil {
				return nil, err
			}
			samplesCache.Lock()
			samplesCache.m[key] = s
			samplesCache.Unlock()
		}
		s, err := randSkip(s, p.GetRandSkip(), env.Seed)
		if err != nil {
			return nil, err
		}
		tr, err := DataTransform(def.GetTransformParam(), env.Dir, Phase(env.Phase), int64(env.Seed))
		if err != nil {
			return nil, err
		}
		order := data.Sequential
		if p.GetShuffle() {
			order = data.Shuffle
		}
		return data.NewBatcher(s, data.BatchOptions{Size: l.batch, Order: order, Seed: int64(env.Seed), Transform: tr})
	}
	return l, nil
}
