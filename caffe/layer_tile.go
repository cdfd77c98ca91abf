package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Tile", Bottoms: Exactly(1), Tops: Exactly(1), New: newTile, Shape: ruleOf((*Tile).inferShapes)})
}

// Tile repeats the bottom tile_param.tiles times along tile_param.axis
// (default 1).
type Tile struct {
	layerBase
	tiles, axisParam int
	outer, inner     int // inner: the values from axis on
}

var _ Layer = (*Tile)(nil)

func newTile(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetTileParam()
	if p.GetTiles() < 1 {
		return nil, fmt.Errorf("tile_param.tiles must be at least 1, got %d", p.GetTiles())
	}
	return &Tile{layerBase: newLayerBase("Tile", def, env), tiles: int(p.GetTiles()), axisParam: int(orDefaults(p).GetAxis())}, nil
}

// topShape returns the top's shape for a bottom of shape b, and the axis
// that is tiled.
func (l *Tile) topShape(b Shape) (Shape, int, error) {
	axis, err := canonicalAxis("tile_param.axis", l.axisParam, len(b))
	if err != nil {
		return nil, 0, err
	}
	top := b.clone()
	top[axis] *= l.tiles
	return top, axis, nil
}

// inferShapes is Tile's shape rule.
func (l *Tile) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, _, err := l.topShape(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Setup checks the blobs.
func (l *Tile) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape multiplies the axis by the tiles.
func (l *Tile) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	shape, axis, err := l.topShape(b.shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	top[0].Reshape(shape...)
	l.outer, l.inner = b.CountRange(0, axis), b.CountFrom(axis)
	return nil
}

// Forward repeats every block.
func (l *Tile) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for o := 0; o < l.outer; o++ {
		block := x[o*l.inner : (o+1)*l.inner]
		for t := 0; t < l.tiles; t++ {
			copy(y[(o*l.tiles+t)*l.inner:], block)
		}
	}
	return nil
}

// Backward sums the gradients of the copies.
func (l *Tile) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dx, dy := bottom[0].DiffSlice(), top[0].DiffSlice()
	for o := 0; o < l.outer; o++ {
		d := dx[o*l.inner : (o+1)*l.inner]
		copy(d, dy[o*l.tiles*l.inner:])
		for t := 1; t < l.tiles; t++ {
			for i, v := range dy[(o*l.tiles+t)*l.inner : (o*l.tiles+t+1)*l.inner] {
				d[i] += v
			}
		}
	}
}
