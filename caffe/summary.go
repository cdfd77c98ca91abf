package caffe

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Summary describes a processed net: one row per layer with its output
// shapes and parameter count.
type Summary struct {
	Net   string
	State NetState
	Rows  []SummaryRow
	// Params is the number of parameter values the net owns (shared
	// parameters counted once). When ParamsKnown is false it counts only
	// the layers whose parameters are known, and Unknown lists the others.
	Params      int64
	ParamsKnown bool
	// Unknown lists the layers whose number of parameters depends on
	// input shapes that were not given (the data's channels, say).
	Unknown []string
	// Inputs and Outputs are the net's input and output blobs.
	Inputs  []string
	Outputs []string
}

// SummaryRow is one layer of a Summary.
type SummaryRow struct {
	Layer string
	Type  string
	// Tops and Shapes name each top blob and give its shape (nil when
	// unknown).
	Tops   []string
	Shapes []Shape
	// Params is the number of parameter values the layer owns (shared ones
	// count at their owner); meaningful only when ParamsKnown.
	Params      int64
	ParamsKnown bool
	// Shares names the layers whose parameters this one shares.
	Shares []string
}

// Summarize infers the shapes of a processed net (see InferShapes for
// inputShapes) and tabulates them. When the shapes of its data are unknown
// (a Data layer whose database is absent), the parameters that the
// definition alone determines are still counted (see probeParams), and
// Unknown names the layers whose count depends on the data.
func Summarize(def *NetDef, inputShapes map[string][]int) (*Summary, error) {
	shapes, err := InferShapes(def, inputShapes)
	if err != nil {
		return nil, err
	}
	probed := probeParams(def, shapes, inputShapes)
	s := &Summary{Net: def.Name, State: def.State, ParamsKnown: true, Inputs: def.Inputs, Outputs: def.Outputs}
	for i, l := range def.Layers {
		ls := shapes.Layers[i]
		params := ls.Params
		if i < len(probed) && probed[i] != nil {
			params = probed[i]
		}
		// A layer whose parameter blobs are known only once it is set
		// up has them counted when shape inference set it up.
		row := SummaryRow{Layer: l.Name, Type: l.Type, Tops: l.Tops, Shapes: ls.Tops, ParamsKnown: l.ParamsKnown || ls.setUp}
		for k, shape := range params {
			if k < len(l.Params) {
				if p := def.Params[l.Params[k]]; p.Owner >= 0 {
					owner := def.Layers[def.Params[p.Owner].Layer].Name
					if len(row.Shares) == 0 || row.Shares[len(row.Shares)-1] != owner {
						row.Shares = append(row.Shares, owner)
					}
					continue
				}
			}
			if !shape.Known() {
				row.ParamsKnown = false
				continue
			}
			row.Params += int64(shape.Count())
		}
		if row.ParamsKnown {
			s.Params += row.Params
		} else {
			s.ParamsKnown = false
			s.Unknown = append(s.Unknown, l.Name)
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

// probeParams finds the parameter shapes that a net's definition alone
// determines when the shapes of its data are unknown (a Data layer whose
// database is absent): it infers the shapes again with the data given made-up
// shapes, three times with different channels and sizes (a crop_size
// stays), and keeps, for each layer whose parameters were unknown, the
// shapes that came out the same every time: those of conv2 in LeNet
// (its input has conv1's channels), but not conv1's (the data's channels)
// or ip1's (the data's size). It returns them by layer index, nil where
// nothing was learned.
func probeParams(def *NetDef, shapes *Shapes, given map[string][]int) [][]Shape {
	unknownParams := false
	for i := range def.Layers {
		for _, p := range shapes.Layers[i].Params {
			unknownParams = unknownParams || !p.Known()
		}
	}
	if !unknownParams {
		return nil
	}
	// The data tops to make up: the first top of a data layer, as
	// N×C×H×W, and its label as [N], with N 1.
	type probe struct {
		data, label string
		crop        int
	}
	var probes []probe
	for i, l := range def.Layers {
		if !l.typ.Data || len(l.Tops) == 0 || shapes.Layers[i].Tops[0].Known() {
			continue
		}
		if _, ok := given[l.Tops[0]]; ok {
			continue
		}
		p := probe{data: l.Tops[0], crop: int(l.Param.GetTransformParam().GetCropSize())}
		if len(l.Tops) == 2 {
			p.label = l.Tops[1]
		}
		probes = append(probes, p)
	}
	if len(probes) == 0 {
		return nil
	}
	var runs []*Shapes
	for _, d := range [][3]int{{3, 97, 97}, {5, 131, 131}, {7, 163, 163}} {
		in := map[string][]int{}
		for k, v := range given {
			in[k] = v
		}
		for _, p := range probes {
			h, w := d[1], d[2]
			if p.crop > 0 {
				h, w = p.crop, p.crop
			}
			in[p.data] = []int{1, d[0], h, w}
			if p.label != "" {
				if _, ok := given[p.label]; !ok {
					in[p.label] = []int{1}
				}
			}
		}
		// Layers the made-up shapes do not suit (a loss comparing the
		// data with a layer of fixed size) have unknown shapes, and the
		// layers after them are still probed.
		if got, err := inferShapes(def, in, true); err == nil {
			runs = append(runs, got)
		}
	}
	if len(runs) < 2 {
		return nil
	}
	out := make([][]Shape, len(def.Layers))
	for i := range def.Layers {
		have := shapes.Layers[i].Params
		known := true
		for _, p := range have {
			known = known && p.Known()
		}
		if known {
			continue
		}
		same := true
		for _, r := range runs[1:] {
			a, b := runs[0].Layers[i].Params, r.Layers[i].Params
			same = same && len(a) == len(b) && len(a) == len(have)
			for k := 0; same && k < len(a); k++ {
				same = a[k].equal(b[k])
			}
		}
		if same {
			out[i] = runs[0].Layers[i].Params
		}
	}
	return out
}

// String renders the summary as an aligned text table.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Net %q (%s)\n", s.Net, s.State)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "LAYER\tTYPE\tOUTPUT\tSHAPE\tPARAMS")
	for _, r := range s.Rows {
		params := "?"
		if r.ParamsKnown {
			params = groupDigits(r.Params)
		}
		if len(r.Shares) > 0 {
			params += " (shares " + strings.Join(r.Shares, ", ") + ")"
		}
		if len(r.Tops) == 0 {
			fmt.Fprintf(w, "%s\t%s\t-\t\t%s\n", r.Layer, r.Type, params)
			continue
		}
		for j, top := range r.Tops {
			if j == 0 {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Layer, r.Type, top, r.Shapes[j], params)
			} else {
				fmt.Fprintf(w, "\t\t%s\t%s\t\n", top, r.Shapes[j])
			}
		}
	}
	w.Flush()
	// Continuation lines end in padding; drop it.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	b.Reset()
	b.WriteString(strings.Join(lines, "\n"))
	if s.ParamsKnown {
		fmt.Fprintf(&b, "Total params: %s\n", groupDigits(s.Params))
	} else {
		fmt.Fprintf(&b, "Total params: %s and those of %s, which depend on the shape of the data; give the input shapes to count them\n",
			groupDigits(s.Params), shortList(s.Unknown))
	}
	return b.String()
}

// groupDigits writes n with thousands separators: 1,234,567.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
