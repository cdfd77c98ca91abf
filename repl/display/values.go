package display

import (
	"fmt"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/ndarray"
)

// Text returns the text form of v that the shell shows in a terminal:
// tables drawn, figures as sparklines, arrays numpy-style, and anything
// else as fmt's %v.
func Text(v any) string {
	if t := AsTable(v); t != nil {
		return strings.TrimRight(t.String(), "\n")
	}
	if f := AsFigure(v); f != nil {
		return strings.TrimRight(f.String(), "\n")
	}
	return fmt.Sprint(v)
}

// AsTable returns the table form of v, or nil when v has none: a *Table
// itself, a weight collection (layer, blob, shape, norm), a net or a net
// summary (layer, type, outputs, parameters).
func AsTable(v any) *Table {
	switch x := v.(type) {
	case *Table:
		return x
	case *ndarray.WeightCollection:
		if x != nil {
			return WeightTable(x)
		}
	case *caffe.Net:
		if x != nil {
			return NetTable(x)
		}
	case *caffe.Summary:
		if x != nil {
			return SummaryTable(x)
		}
	}
	return nil
}

// AsFigure returns the figure form of v, or nil when v has none: a
// *Figure itself, a training History or a Training.
func AsFigure(v any) *Figure {
	switch x := v.(type) {
	case *Figure:
		return x
	case *History:
		if x != nil {
			return x.Figure()
		}
	case *Training:
		if x != nil {
			return x.Figure()
		}
	}
	return nil
}

// WeightTable tabulates a weight collection: one row per array with its
// layer, index within the layer, shape and L2 norm.
func WeightTable(wc *ndarray.WeightCollection) *Table {
	t := NewTable("layer", "blob", "shape", "norm")
	t.TextColumns = []string{"shape"}
	t.Title = wc.String()
	for _, layer := range wc.Layers() {
		for i, a := range wc.Get(layer) {
			t.Add(layer, i, a.Shape(), a.Norm())
		}
	}
	return t
}

// NetTable tabulates a net: one row per layer with its type, its output
// blobs and their shapes, and its number of parameter values.
func NetTable(n *caffe.Net) *Table {
	t := NewTable("layer", "type", "outputs", "params")
	t.TextColumns = []string{"outputs"}
	def := n.Def()
	total := 0
	for i, l := range def.Layers {
		var tops []string
		for _, top := range l.Tops {
			shape := "?"
			if b := n.Blob(top); b != nil {
				shape = Shape(b.Shape())
			}
			tops = append(tops, top+" "+shape)
		}
		params := 0
		for _, p := range n.LayerAt(i).Params() {
			params += p.Count()
		}
		total += params
		t.Add(l.Name, l.Type, strings.Join(tops, ", "), params)
	}
	t.Title = fmt.Sprintf("Net %q (%s), %d layers", n.Name(), n.Phase(), n.NumLayers())
	t.Footer = fmt.Sprintf("%d parameter values (%d learnable)", total, n.NumLearnableValues())
	return t
}

// SummaryTable tabulates a net summary made by caffe.Summarize.
func SummaryTable(s *caffe.Summary) *Table {
	t := NewTable("layer", "type", "outputs", "params")
	t.TextColumns = []string{"outputs"}
	for _, r := range s.Rows {
		var tops []string
		for i, top := range r.Tops {
			shape := "?"
			if i < len(r.Shapes) && r.Shapes[i] != nil {
				shape = fmt.Sprint(r.Shapes[i])
			}
			tops = append(tops, top+" "+shape)
		}
		params := "?"
		if r.ParamsKnown {
			params = fmt.Sprint(r.Params)
		}
		if len(r.Shares) > 0 {
			params += " (shares " + strings.Join(r.Shares, ", ") + ")"
		}
		t.Add(r.Layer, r.Type, strings.Join(tops, ", "), params)
	}
	t.Title = fmt.Sprintf("Net %q (%s)", s.Net, s.State)
	if s.ParamsKnown {
		t.Footer = fmt.Sprintf("%d parameter values", s.Params)
	}
	return t
}
