package caffe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

// Shape is the shape of a blob, outermost axis first. A nil Shape is
// unknown; a scalar (a loss) is a non-nil Shape with no axes.
type Shape []int

// Known reports whether the shape is known.
func (s Shape) Known() bool { return s != nil }

// Count returns the number of elements (1 for a scalar), or -1 when the
// shape is unknown.
func (s Shape) Count() int {
	if s == nil {
		return -1
	}
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// String renders the shape as 64x1x28x28, "scalar", or "?" when unknown.
func (s Shape) String() string {
	switch {
	case s == nil:
		return "?"
	case len(s) == 0:
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

func (s Shape) clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

func (s Shape) equal(t Shape) bool {
	return s != nil && t != nil && intsEqual(s, t)
}

// count returns the product of dims [start, end).
func (s Shape) count(start, end int) int {
	n := 1
	for _, d := range s[start:end] {
		n *= d
	}
	return n
}

// LayerShapes holds the shapes of one layer's blobs.
type LayerShapes struct {
	Bottoms []Shape
	Tops    []Shape
	// Params has the shape of each parameter blob, in order.
	Params []Shape

	setUp bool // the shapes come from setting the layer up
}

// ParamCount returns the number of parameter values of the layer, and
// whether it is known.
func (ls LayerShapes) ParamCount() (int64, bool) {
	var n int64
	for _, p := range ls.Params {
		if !p.Known() {
			return 0, false
		}
		n += int64(p.Count())
	}
	return n, true
}

// Shapes holds the blob and parameter shapes of a processed net.
type Shapes struct {
	// Layers is index-aligned with NetDef.Layers.
	Layers []LayerShapes
	// Blobs maps every blob name to its shape (after the last layer that
	// writes it).
	Blobs map[string]Shape
}

// InferShapes computes the shape of every blob and every parameter blob of
// a processed net with Caffe's rules (convolution output sizes rounded
// down, pooling rounded up with Caffe's correction for padding, ...), and
// checks what Caffe checks when it sets layers up (channels divisible by
// group, matching Concat inputs, label counts, shared parameter shapes, ...).
// Each layer type's shape rule (LayerType.Shape) does the work, from the
// settings the layer read from its definition; a type without a rule is
// set up on blobs of its bottoms' shapes.
//
// inputShapes gives shapes for tops of layers without bottoms (data and
// input layers), by blob name, overriding what their definition says; a
// data layer whose samples come from a database or file has top shapes
// that are unknown without them (only the label's [batch] is known). Layers
// reading an unknown blob have unknown tops; parameter shapes that do not
// depend on the input (a bias) are still given. Unknown shapes are nil.
func InferShapes(def *NetDef, inputShapes map[string][]int) (*Shapes, error) {
	return inferShapes(def, inputShapes, false)
}

// inferShapes is InferShapes; when lenient, a layer whose shapes cannot
// be computed from its bottoms' (an error) gets the shapes it has for
// unknown bottoms instead, and the inference goes on.
func inferShapes(def *NetDef, inputShapes map[string][]int, lenient bool) (*Shapes, error) {
	sources := map[string]bool{}
	for _, l := range def.Layers {
		if len(l.Bottoms) == 0 {
			for _, t := range l.Tops {
				sources[t] = true
			}
		}
	}
	var names []string
	for name := range inputShapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !sources[name] {
			var ok []string
			for s := range sources {
				ok = append(ok, s)
			}
			return nil, fmt.Errorf("caffe: a shape is given for blob %q, which is not a top of a data or input layer of net %q; give shapes for: %s",
				name, def.Name, orNone(sortedStrings(ok)))
		}
		if _, err := format.ShapeCount(inputShapes[name]); err != nil {
			return nil, fmt.Errorf("caffe: shape given for blob %q: %w", name, err)
		}
	}

	out := &Shapes{Layers: make([]LayerShapes, len(def.Layers)), Blobs: map[string]Shape{}}
	for i, l := range def.Layers {
		bottoms := make([]Shape, len(l.Bottoms))
		for j, b := range l.Bottoms {
			bottoms[j] = out.Blobs[b]
		}
		c, err := l.inferShapes(bottoms)
		if err == nil && len(l.Bottoms) == 0 {
			c.applyInputShapes(inputShapes)
		}
		if err == nil {
			err = c.checkCounts()
		}
		if err == nil {
			err = checkSharedShapes(def, out, l, c.Params)
		}
		if err != nil && lenient && len(l.Bottoms) > 0 {
			c, err = l.inferShapes(make([]Shape, len(l.Bottoms)))
		}
		if err != nil {
			return nil, err
		}
		for j, name := range l.Tops {
			out.Blobs[name] = c.Tops[j]
		}
		out.Layers[i] = LayerShapes{Bottoms: c.Bottoms, Tops: c.Tops, Params: c.Params, setUp: c.setUp}
	}
	return out, nil
}

// checkCounts checks that the shapes the rule gave have sizes a blob may
// have.
func (c *ShapeContext) checkCounts() error {
	for j, t := range c.Tops {
		if t.Known() {
			if _, err := format.ShapeCount(t); err != nil {
				return c.Errorf("top %q: %v", c.ld.Tops[j], err)
			}
		}
	}
	for k, p := range c.Params {
		if p.Known() {
			if _, err := format.ShapeCount(p); err != nil {
				return c.Errorf("parameter %d: %v", k, err)
			}
		}
	}
	return nil
}

func sortedStrings(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// checkSharedShapes checks a layer's shared parameters against their owners, as
// Caffe does: equal shapes, or equal counts for PERMISSIVE sharing.
func checkSharedShapes(def *NetDef, out *Shapes, l *LayerDef, params []Shape) error {
	for k, id := range l.Params {
		p := def.Params[id]
		if p.Owner < 0 || k >= len(params) {
			continue
		}
		o := def.Params[p.Owner]
		op := out.Layers[o.Layer].Params
		if o.Index >= len(op) {
			continue
		}
		owner, mine := op[o.Index], params[k]
		if !owner.Known() || !mine.Known() {
			continue
		}
		if p.ShareMode == caffepb.ParamSpec_PERMISSIVE {
			if owner.Count() != mine.Count() {
				return l.errorf("cannot share param %q of layer %q: counts differ (owner shape %v, here %v)",
					p.Name, def.Layers[o.Layer].Name, owner, mine)
			}
		} else if !owner.equal(mine) {
			return l.errorf("cannot share param %q of layer %q: shapes differ (owner %v, here %v); use share_mode: PERMISSIVE to require equal counts only",
				p.Name, def.Layers[o.Layer].Name, owner, mine)
		}
	}
	return nil
}

// ShapeContext is what a shape rule works on: a layer, the shapes of its
// bottoms, and the shapes of its tops and parameter blobs, which the rule
// sets.
type ShapeContext struct {
	// Layer is the layer made from the definition by its type's
	// constructor, not set up: the rule reads the settings it parsed. Nil
	// for a type sparknet does not run.
	Layer Layer
	// Def is the layer's definition.
	Def *caffepb.LayerParameter
	// Bottoms are the shapes of the bottom blobs; nil ones are unknown.
	Bottoms []Shape
	// Tops has one entry per top blob, unknown (nil) until the rule sets
	// it.
	Tops []Shape
	// Params has one entry per parameter blob, in the layer's order. The
	// rule sets it, also when the bottoms are unknown (then with nil
	// entries for the shapes that depend on them).
	Params []Shape

	ld    *LayerDef
	setUp bool // the shapes come from setting the layer up
}

// Known reports whether every bottom shape is known.
func (c *ShapeContext) Known() bool {
	for _, b := range c.Bottoms {
		if !b.Known() {
			return false
		}
	}
	return true
}

// Errorf makes an error about the layer, naming it and, when it came from a
// text file, where it was defined. A %w verb wraps as in fmt.Errorf.
func (c *ShapeContext) Errorf(format string, args ...any) error {
	return c.ld.errorf("%s", fmt.Errorf(format, args...).Error())
}

// SameShapes gives every top the shape of its bottom (of bottom 0 for tops
// past the last bottom), for layers that keep their input's shape.
func (c *ShapeContext) SameShapes() {
	for j := range c.Tops {
		if j < len(c.Bottoms) {
			c.Tops[j] = c.Bottoms[j].clone()
		} else if len(c.Bottoms) > 0 {
			c.Tops[j] = c.Bottoms[0].clone()
		}
	}
}

// Axis returns Caffe's canonical index of axis (negative counts from the
// end) for a blob of n axes, or an error naming the parameter.
func (c *ShapeContext) Axis(axis, n int, what string) (int, error) {
	a, err := canonicalAxis(what, axis, n)
	if err != nil {
		return 0, c.Errorf("%w", err)
	}
	return a, nil
}

// sameShapes is the shape rule of layers whose tops keep their bottoms'
// shapes and that have no parameters.
func sameShapes(c *ShapeContext) error {
	c.SameShapes()
	return nil
}

func (c *ShapeContext) applyInputShapes(inputShapes map[string][]int) {
	var batch = -1
	for j, name := range c.ld.Tops {
		if s, ok := inputShapes[name]; ok {
			c.Tops[j] = append(Shape{}, s...)
			if j == 0 && len(s) > 0 {
				batch = s[0]
			}
		}
	}
	// A data layer's label follows the batch size of an overridden data
	// top.
	if c.ld.typ.Data && batch >= 0 && len(c.ld.Tops) == 2 {
		if _, ok := inputShapes[c.ld.Tops[1]]; !ok {
			c.Tops[1] = Shape{batch}
		}
	}
}

// inferShapes runs the layer's shape rule on bottoms of the given shapes
// (nil for unknown), or, for a type without one, sets the layer up when
// every bottom's shape is known.
func (l *LayerDef) inferShapes(bottoms []Shape) (*ShapeContext, error) {
	c := &ShapeContext{Layer: l.layer, Def: l.Param, Bottoms: bottoms, Tops: make([]Shape, len(l.Tops)), ld: l}
	if rule := l.typ.Shape; rule != nil {
		if err := safeLayerCall(l, func() error { return rule(c) }); err != nil {
			return nil, wrapLayerPos(l, err)
		}
		if l.ParamsKnown && len(c.Params) != len(l.Params) {
			return nil, c.Errorf("the shape rule of %s gives %d parameter blobs here and %d for unknown input shapes; it must give the same number",
				l.Type, len(c.Params), len(l.Params))
		}
		return c, nil
	}
	c.Params = make([]Shape, len(l.Params))
	if l.typ.New == nil || !c.Known() {
		return c, nil
	}
	if err := c.setUpLayer(); err != nil {
		return nil, err
	}
	return c, nil
}

// setUpLayer learns a layer's shapes by making it afresh and setting it
// up on zero-filled blobs of its bottoms' shapes.
func (c *ShapeContext) setUpLayer() error {
	l := c.ld
	bottom := make([]*Blob, len(c.Bottoms))
	for j, s := range c.Bottoms {
		if _, err := format.ShapeCount(s); err != nil {
			return c.Errorf("bottom %q: %v", l.Bottoms[j], err)
		}
		bottom[j] = NewBlob(s...)
	}
	top := make([]*Blob, len(l.Tops))
	for j := range top {
		if j < len(l.Bottoms) && l.Bottoms[j] == l.Tops[j] {
			top[j] = bottom[j]
		} else {
			top[j] = &Blob{}
		}
	}
	var layer Layer
	err := safeLayerCall(l, func() (err error) {
		if layer, err = NewLayer(l.Param, &LayerEnv{Phase: l.Param.GetPhase(), Threads: 1}); err != nil {
			return err
		}
		return layer.Setup(bottom, top)
	})
	if err != nil {
		return wrapLayerPos(l, err)
	}
	for j, t := range top {
		c.Tops[j] = append(Shape{}, t.shape...)
	}
	c.Params = c.Params[:0]
	for _, p := range layer.Params() {
		c.Params = append(c.Params, append(Shape{}, p.shape...))
	}
	c.setUp = true
	return nil
}

// InPlace reports whether top j is bottom j: the layer computes in place.
func (c *ShapeContext) InPlace(j int) bool {
	return j < len(c.Def.Bottom) && j < len(c.Def.Top) && c.Def.Bottom[j] == c.Def.Top[j]
}
